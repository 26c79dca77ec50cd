/**
 * Run turns: one FIFO queue per isolate that runs' CPU phases pass through, granting at most
 * one phase per macrotask. Locally workerd serves every request of the service from one thread;
 * when 20 runs each took their own `setTimeout(0)` turn, their timers expired together and their
 * phases ran back to back, and a `/health` waited behind the whole burst. Through the queue, a
 * phase is granted only in a timer that was armed after the previous grant, so whatever arrived
 * on the socket meanwhile is served between any two run phases.
 *
 * Every timer is armed from the waiting run's own code (in workerd, its own request context): a
 * phase costs one timer when the queue is free, and a wake-up and a second (stall-check) timer when
 * it waited behind others. A waiter whose request went away (workerd cancels its continuations, so
 * it never takes its grant) cannot block the queue: the others check every `STALLED_HEAD_MS`
 * whether the head has been waiting that long, and pass it by.
 */

/** How long the head of the queue may go without taking its grant before the others pass it by. */
export const STALLED_HEAD_MS = 100;

interface Waiter {
  /** Since when this waiter has been at the head of the queue (ms). */
  headSince: number;
  /** Wakes the waiter when it reaches the head. */
  wake: () => void;
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
    const waiter: Waiter = { headSince: Date.now(), wake: () => undefined };
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
        // Armed in the same synchronous stretch as the check above, so no wake-up is missed.
        const woken = new Promise<void>((resolve) => {
          waiter.wake = resolve;
        });
        await wokenOrStalled(woken);
        if (this.#queue[0] !== waiter) this.#passStalledHead();
      }
      // Passed by as stalled while it was in fact only late: it goes on, it was in line long enough.
      if (!this.#queue.includes(waiter)) return;
    }
  }

  /** The head took its grant: the next waiter becomes the head. */
  #pass(): void {
    this.#queue.shift();
    const next = this.#queue[0];
    if (next === undefined) return;
    next.headSince = Date.now();
    next.wake();
  }

  #passStalledHead(): void {
    const head = this.#queue[0];
    if (head !== undefined && Date.now() - head.headSince >= STALLED_HEAD_MS) this.#pass();
  }
}

function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** `woken`, or `STALLED_HEAD_MS` later, whichever comes first (the timer does not outlive it). */
async function wokenOrStalled(woken: Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, STALLED_HEAD_MS);
  });
  try {
    await Promise.race([woken, stalled]);
  } finally {
    clearTimeout(timer);
  }
}

/** This isolate's queue: every run phase of the service goes through it. */
export const runTurns = new RunTurns();
