/**
 * One slice of background work in a Durable Object's alarm (an import's cut and batches,
 * routing's preparation), bounded by time and by pieces counted: between two pieces the object
 * is handed back for a macrotask, so requests to it (routes, progress polls, long-polls whose
 * timers are due) and, locally, to every other object of the process are served in between. A
 * slice whose budget is spent ends, and the work continues in the next alarm.
 */

export interface SliceBudget {
  /** Time per alarm before handing the object back (alarms have a CPU limit). */
  sliceMs: number;
  /** Pieces of work per alarm, whatever the clock says: deployed, the clock stands still while code computes. */
  slicePieces: number;
}

/** What a slice did: pieces, its time and its longest piece (progress and benchmarks show it). */
export interface SliceReport {
  pieces: number;
  ms: number;
  longestPieceMs: number;
}

/** A macrotask turn: requests queued for the object (and, locally, for every object of the process) run before the work goes on. */
export function macrotaskTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

export class WorkSlice {
  readonly #started = Date.now();
  readonly #budget: SliceBudget;
  #pieces = 0;
  #longestPieceMs = 0;
  #pieceStarted = Date.now();

  constructor(budget: SliceBudget) {
    this.#budget = budget;
  }

  /** A piece ended: false when the slice's budget is spent (the work continues in the next slice), else true after a macrotask. */
  async next(): Promise<boolean> {
    this.#pieces += 1;
    this.#longestPieceMs = Math.max(this.#longestPieceMs, Date.now() - this.#pieceStarted);
    if (this.#pieces >= this.#budget.slicePieces || Date.now() - this.#started >= this.#budget.sliceMs) return false;
    await macrotaskTurn();
    this.#pieceStarted = Date.now();
    return true;
  }

  /** What the slice did so far; the longest piece counts the one still going (a slice's last stretch holds the object too). */
  report(): SliceReport {
    const now = Date.now();
    return { pieces: this.#pieces, ms: now - this.#started, longestPieceMs: Math.max(this.#longestPieceMs, now - this.#pieceStarted) };
  }
}
