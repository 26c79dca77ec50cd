/**
 * Run turns: one FIFO queue per isolate that runs' CPU phases pass through, granting at most
 * one phase per macrotask. Locally workerd serves every request of the service from one thread;
 * when 20 runs each took their own `setTimeout(0)` turn, their timers expired together and their
 * phases ran back to back, and a `/health` waited behind the whole burst. Through the queue, a
 * phase is granted only in a timer that was armed after the previous grant, so whatever arrived
 * on the socket meanwhile is served between any two run phases.
 *
 * Every promise a waiter awaits is its own: it is resolved by a timer the waiter armed, in its own
 * request context, never by another request's code. Workerd cancels the continuations of a request
 * that ended, and a promise of such a request resolved from another one makes it log "A promise was
 * resolved or rejected from a different request context" (deployed, such a promise can hang or
 * throw); a run whose client gave up, or whose tool call was left queued at its deadline, leaves
 * such a waiter behind. So a waiter looks at the queue from its own timers: at once while the head
 * is fresh, then every `IDLE_POLL_MS` until it is its turn, or the head has gone `STALLED_HEAD_MS`
 * without taking its grant and is passed by (its request went away).
 */

/** How long the head of the queue may go without taking its grant before the others pass it by. */
export const STALLED_HEAD_MS = 100;

/** How often a waiter looks at the queue while its head is slow to take its grant (ms). */
export const IDLE_POLL_MS = 5;
/** How long a new head is looked at every macrotask: it takes its grant in its next one. */
const FRESH_HEAD_MS = 2;

interface Waiter {
  /** Since when this waiter has been at the head of the queue (ms). */
  headSince: number;
}

/** One FIFO queue of run phases; the service has one per isolate (`runTurns`). */
export class RunTurns {
  readonly #queue: Waiter[] = [];
  readonly #nextMacrotask: () => Promise<void>;

  /** `nextMacrotask` is how the head waits for its macrotask (a test stands in a head that never gets it). */
  constructor(options: { nextMacrotask?: () => Promise<void> } = {}) {
    this.#nextMacrotask = options.nextMacrotask ?? nextMacrotask;
  }

  /** Runs waiting for their turn, the one about to be granted included. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Wait for this run's turn: resolves in a macrotask of its own, after every phase that asked
   * before it, and never in the same macrotask as the previous grant.
   */
  async take(): Promise<void> {
    const waiter: Waiter = { headSince: Date.now() };
    this.#queue.push(waiter);
    for (;;) {
      if (this.#queue[0] === waiter) {
        // Armed now, after the grant that made this waiter the head: it fires in a later macrotask.
        await this.#nextMacrotask();
        if (this.#queue[0] === waiter) {
          this.#pass();
          return;
        }
      } else {
        await sleep(this.#pollDelay());
        if (this.#queue[0] !== waiter) this.#passStalledHead();
      }
      // Passed by as stalled while it was in fact only late: it goes on, it was in line long enough.
      if (!this.#queue.includes(waiter)) return;
    }
  }

  /** The head took its grant: the next waiter becomes the head (it sees so from its own timer). */
  #pass(): void {
    this.#queue.shift();
    const next = this.#queue[0];
    if (next !== undefined) next.headSince = Date.now();
  }

  #passStalledHead(): void {
    const head = this.#queue[0];
    if (head !== undefined && Date.now() - head.headSince >= STALLED_HEAD_MS) this.#pass();
  }

  /** At once while the head is fresh (it is about to take its grant), less often while it is slow. */
  #pollDelay(): number {
    const head = this.#queue[0];
    return head === undefined || Date.now() - head.headSince < FRESH_HEAD_MS ? 0 : IDLE_POLL_MS;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** This isolate's queue: every run phase of the service goes through it. */
export const runTurns = new RunTurns();
