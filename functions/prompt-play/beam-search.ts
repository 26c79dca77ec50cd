import { isBudgetExhausted } from "./budget";
import { validateBeamSettings, type BeamSettings } from "./settings";

/**
 * Beam search bookkeeping, shared by both Play2Prompt searches (§2.1: "we employ beam search to
 * identify high-scoring states, treating each state as a node in a tree"). It knows nothing of
 * demonstrations or descriptions: a problem expands a node into one scored candidate (or none:
 * a rejected sample), and this module keeps the best k children per depth, the best nodes
 * overall, a record of every depth for progress display, and a resumable state.
 *
 * The state is plain JSON and is handed out after every expansion, so a background job that is
 * cut off resumes at the next expansion instead of starting over.
 */

export type StopReason = "budget" | "depth" | "converged";

export interface BeamNode<S> {
  /** `<depth>.<index>`: the index counts expansions within the depth, so ids are deterministic. */
  id: string;
  parentId: string | null;
  depth: number;
  index: number;
  score: number;
  /** A short text for progress displays. */
  summary: string;
  state: S;
}

/** A node as shown in progress displays and records. */
export interface BeamEntry {
  id: string;
  parentId: string | null;
  depth: number;
  score: number;
  summary: string;
}

export interface BeamRecord {
  depth: number;
  /** The nodes kept at this depth, best first. */
  beam: BeamEntry[];
  /** Every distinct candidate produced at this depth, best first (the beam is its head). */
  candidates: BeamEntry[];
  /** True when the budget stopped the search before this depth was complete. */
  partial: boolean;
}

export interface Candidate<S> {
  state: S;
  score: number;
  summary: string;
}

export interface BeamSearchState<S> {
  /** The depth being built: its parents are `beam`. */
  depth: number;
  beam: BeamNode<S>[];
  /** Children made so far at this depth. */
  children: BeamNode<S>[];
  /** The next expansion: parent `floor(next / expansionsPerNode)`, sample `next % expansionsPerNode`. */
  next: number;
  /** Completed depths, the roots first. */
  records: BeamRecord[];
  /** The best nodes seen so far (roots included when they are results), best first. */
  best: BeamNode<S>[];
  stoppedBy?: StopReason | undefined;
}

export interface BeamProblem<S> {
  /** Called once before a beam node's first expansion; returns the node with any state it needs (e.g. a reflection). */
  prepare?(node: BeamNode<S>): Promise<BeamNode<S>>;
  /** One child of `parent` (the `expansion`-th of this parent), or undefined when the sample was rejected. */
  expand(parent: BeamNode<S>, expansion: number): Promise<Candidate<S> | undefined>;
  /** Checked at every step boundary: true stops the search with `stoppedBy: "budget"`. */
  shouldStop(): boolean;
  /** True when searching further cannot help (e.g. a perfect score); asked after every new node and at each depth. */
  converged?(beam: readonly BeamNode<S>[], best: readonly BeamNode<S>[]): boolean;
  /** Candidates with the same key are duplicates; the better (or earlier) one is kept. */
  key?(state: S): string;
}

export interface BeamHooks<S> {
  onNode?(node: BeamEntry): void;
  onBeam?(record: BeamRecord): void;
  onCheckpoint?(state: BeamSearchState<S>): void | Promise<void>;
}

export interface BeamSearchOutcome<S> {
  state: BeamSearchState<S>;
  best: BeamNode<S>[];
  /** One record per depth reached, including a partial one when the budget stopped a depth midway. */
  records: BeamRecord[];
  stoppedBy: StopReason;
}

/** The display form of a node. */
export function entryOf<S>(node: BeamNode<S>): BeamEntry {
  return { id: node.id, parentId: node.parentId, depth: node.depth, score: node.score, summary: node.summary };
}

/**
 * Best first; ties go to the shallower node, then to the earlier one. Shallower first means a
 * new description that only ties the original does not replace it, and the order never depends
 * on timing or object identity, so runs are reproducible.
 */
export function compareNodes<S>(a: BeamNode<S>, b: BeamNode<S>): number {
  return b.score - a.score || a.depth - b.depth || a.index - b.index;
}

/** Nodes best first, duplicates (by key) dropped. */
export function rankNodes<S>(nodes: readonly BeamNode<S>[], key?: (state: S) => string): BeamNode<S>[] {
  const sorted = [...nodes].sort(compareNodes);
  if (key === undefined) return sorted;
  const seen = new Set<string>();
  return sorted.filter((n) => {
    const k = key(n.state);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** The start of a search: the roots form the depth-0 beam; `rootsAreResults` says whether they compete for "best". */
export function initialBeamState<S>(
  roots: readonly Candidate<S>[],
  options: { rootsAreResults: boolean; keepBest: number; key?: (state: S) => string },
): BeamSearchState<S> {
  const nodes: BeamNode<S>[] = roots.map((r, index) => ({
    id: `0.${index}`,
    parentId: null,
    depth: 0,
    index,
    score: r.score,
    summary: r.summary,
    state: r.state,
  }));
  const ranked = rankNodes(nodes, options.key);
  return {
    depth: 1,
    beam: ranked,
    children: [],
    next: 0,
    records: [{ depth: 0, beam: ranked.map(entryOf), candidates: ranked.map(entryOf), partial: false }],
    best: options.rootsAreResults ? ranked.slice(0, options.keepBest) : [],
  };
}

function copyState<S>(s: BeamSearchState<S>): BeamSearchState<S> {
  return { ...s, beam: [...s.beam], children: [...s.children], records: [...s.records], best: [...s.best] };
}

/** Run (or resume) a beam search from `state` until the depth limit, convergence or the budget. */
export async function runBeamSearch<S>(input: {
  settings: BeamSettings;
  state: BeamSearchState<S>;
  /** How many best nodes to keep overall. */
  keepBest: number;
  problem: BeamProblem<S>;
  hooks?: BeamHooks<S>;
}): Promise<BeamSearchOutcome<S>> {
  const settings = validateBeamSettings(input.settings);
  const keepBest = Math.max(1, Math.floor(input.keepBest));
  return new BeamRun(settings, keepBest, input.problem, input.hooks, copyState(input.state)).run();
}

/** One run of a beam search: the mutable state `s` and the steps that advance it. */
class BeamRun<S> {
  constructor(
    private readonly settings: BeamSettings,
    private readonly keepBest: number,
    private readonly problem: BeamProblem<S>,
    private readonly hooks: BeamHooks<S> | undefined,
    private readonly s: BeamSearchState<S>,
  ) {}

  async run(): Promise<BeamSearchOutcome<S>> {
    const { s, problem, hooks } = this;
    // A job stopped by its budget may be resumed with a larger one: it picks up where it stopped.
    if (s.stoppedBy === "budget" && !problem.shouldStop()) s.stoppedBy = undefined;
    while (s.stoppedBy === undefined && this.canStartDepth()) {
      await this.expandDepth();
      if (s.stoppedBy !== undefined) break;
      await this.closeDepth();
    }
    // The final state is always handed out, so a stored job knows how (and whether) it ended.
    await this.checkpoint();
    const records = recordsOf(s, this.settings.beamWidth, problem.key);
    const last = records[records.length - 1];
    if (last?.partial) hooks?.onBeam?.(last);
    return { state: copyState(s), best: [...s.best], records, stoppedBy: s.stoppedBy ?? "depth" };
  }

  private async checkpoint(): Promise<void> {
    await this.hooks?.onCheckpoint?.(copyState(this.s));
  }

  /** False (with the reason set) when the current depth has nothing to expand, has converged, or is past the limit. */
  private canStartDepth(): boolean {
    const { s } = this;
    const fresh = s.next === 0 && s.children.length === 0;
    if (fresh && (s.beam.length === 0 || this.problem.converged?.(s.beam, s.best) === true)) {
      s.stoppedBy = "converged";
      return false;
    }
    if (s.depth > this.settings.depth) {
      s.stoppedBy = "depth";
      return false;
    }
    return true;
  }

  /** The remaining expansions of the current depth; stops early on the budget (setting the reason) or convergence. */
  private async expandDepth(): Promise<void> {
    const { s, problem } = this;
    const perNode = this.settings.expansionsPerNode;
    const total = s.beam.length * perNode;
    while (s.next < total) {
      if (problem.shouldStop()) {
        s.stoppedBy = "budget";
        return;
      }
      const parentIndex = Math.floor(s.next / perNode);
      const parent = s.beam[parentIndex];
      if (parent === undefined) return;
      let convergedNow: boolean;
      try {
        convergedNow = await this.expandOnce(parentIndex, parent, s.next % perNode);
      } catch (error) {
        // Only the budget signal ends a search quietly; a failing dependency is the caller's to see.
        if (isBudgetExhausted(error)) {
          s.stoppedBy = "budget";
          return;
        }
        throw error;
      }
      s.next += 1;
      await this.checkpoint();
      if (convergedNow) return;
    }
  }

  /** One expansion of a beam node; true when the child it adds makes the search converge. */
  private async expandOnce(parentIndex: number, beamNode: BeamNode<S>, expansion: number): Promise<boolean> {
    const { s, problem } = this;
    let parent = beamNode;
    if (expansion === 0 && problem.prepare !== undefined) {
      parent = await problem.prepare(parent);
      s.beam[parentIndex] = parent;
    }
    const candidate = await problem.expand(parent, expansion);
    if (candidate === undefined || !Number.isFinite(candidate.score)) return false;
    const node: BeamNode<S> = {
      id: `${s.depth}.${s.next}`,
      parentId: parent.id,
      depth: s.depth,
      index: s.next,
      score: candidate.score,
      summary: candidate.summary,
      state: candidate.state,
    };
    s.children.push(node);
    s.best = rankNodes([...s.best, node], problem.key).slice(0, this.keepBest);
    this.hooks?.onNode?.(entryOf(node));
    // A perfect node ends the depth at once: the remaining expansions could not beat it.
    return problem.converged?.(rankNodes(s.children, problem.key).slice(0, this.settings.beamWidth), s.best) === true;
  }

  /** Records the finished depth and either stops the search or makes its best children the next beam. */
  private async closeDepth(): Promise<void> {
    const { s, problem } = this;
    const ranked = rankNodes(s.children, problem.key);
    const beam = ranked.slice(0, this.settings.beamWidth);
    const record: BeamRecord = { depth: s.depth, beam: beam.map(entryOf), candidates: ranked.map(entryOf), partial: false };
    s.records.push(record);
    this.hooks?.onBeam?.(record);
    // A depth where every sample was rejected leaves nothing to expand: the search has run its course.
    if (beam.length === 0 || problem.converged?.(beam, s.best) === true) s.stoppedBy = "converged";
    else if (s.depth >= this.settings.depth) s.stoppedBy = "depth";
    else {
      s.depth += 1;
      s.beam = beam;
      s.children = [];
      s.next = 0;
    }
    await this.checkpoint();
  }
}

/** The records of a (stored) search: its completed depths, plus the unfinished one when the budget stopped it midway. */
export function recordsOf<S>(state: BeamSearchState<S>, beamWidth: number, key?: (state: S) => string): BeamRecord[] {
  const records = [...state.records];
  if (state.stoppedBy === "budget" && state.children.length > 0) {
    const ranked = rankNodes(state.children, key);
    records.push({ depth: state.depth, beam: ranked.slice(0, beamWidth).map(entryOf), candidates: ranked.map(entryOf), partial: true });
  }
  return records;
}
