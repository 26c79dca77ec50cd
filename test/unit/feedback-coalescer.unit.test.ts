import { describe, expect, it } from "vitest";
import { FeedbackCoalescer } from "../../durable-objects/feedback-coalescer";

/**
 * A coalescer whose turn ends only when the test says so: `endTurn()` runs the flushes scheduled
 * so far (what the object's zero-delay timer does), so every step is deterministic.
 */
function harness(refuse: (item: number) => boolean = () => false) {
  const transactions: number[][] = [];
  let scheduled: (() => void)[] = [];
  const coalescer = new FeedbackCoalescer<number, { ok: boolean; item: number }>(
    (items) => {
      transactions.push([...items]);
      return items.map((item) => ({ ok: !refuse(item), item }));
    },
    (flush) => scheduled.push(flush),
  );
  const endTurn = (): void => {
    const due = scheduled;
    scheduled = [];
    for (const flush of due) flush();
  };
  return { coalescer, transactions, endTurn, pending: () => scheduled.length };
}

describe("FeedbackCoalescer", () => {
  it("applies a lone update at once, in its own turn, without waiting for a flush", async () => {
    const { coalescer, transactions, endTurn } = harness();
    const answer = coalescer.submit(1);
    // Written before submit returned: no timer stands between a lone update and its answer.
    expect(transactions).toEqual([[1]]);
    await expect(answer).resolves.toEqual({ ok: true, item: 1 });
    endTurn(); // the window closes empty: nothing more is written
    expect(transactions).toEqual([[1]]);
  });

  it("applies one update after another at once when each arrives after the previous turn ended", async () => {
    const { coalescer, transactions, endTurn } = harness();
    for (const item of [1, 2, 3]) {
      await expect(coalescer.submit(item)).resolves.toEqual({ ok: true, item });
      endTurn();
    }
    expect(transactions).toEqual([[1], [2], [3]]);
  });

  it("queues updates that arrive during a burst and writes them together, in order, each with its own outcome", async () => {
    const { coalescer, transactions, endTurn } = harness((item) => item === 3);
    const answers = [1, 2, 3, 4].map((item) => coalescer.submit(item));
    expect(transactions).toEqual([[1]]);
    endTurn();
    expect(transactions).toEqual([[1], [2, 3, 4]]);
    await expect(Promise.all(answers)).resolves.toEqual([
      { ok: true, item: 1 },
      { ok: true, item: 2 },
      { ok: false, item: 3 },
      { ok: true, item: 4 },
    ]);
  });

  it("keeps a sustained burst sharing writes, and applies at once again after a turn with no update", async () => {
    const { coalescer, transactions, endTurn, pending } = harness();
    const answers = [coalescer.submit(1), coalescer.submit(2)];
    endTurn();
    // The window that carried update 2 opened another: update 3 joins a flush, not a write of its own.
    answers.push(coalescer.submit(3), coalescer.submit(4));
    expect(transactions).toEqual([[1], [2]]);
    endTurn();
    expect(transactions).toEqual([[1], [2], [3, 4]]);
    endTurn(); // a turn with no update ends the burst
    expect(pending()).toBe(0);
    answers.push(coalescer.submit(5));
    expect(transactions).toEqual([[1], [2], [3, 4], [5]]);
    await expect(Promise.all(answers)).resolves.toHaveLength(5);
  });

  it("answers none of the queued updates while their flush has not run, and rejects all of them if it fails", async () => {
    let failing = false;
    let scheduled: (() => void)[] = [];
    const coalescer = new FeedbackCoalescer<number, number>(
      (items) => {
        if (failing) throw new Error("storage failed");
        return items;
      },
      (flush) => scheduled.push(flush),
    );
    await expect(coalescer.submit(1)).resolves.toBe(1);
    let settled = 0;
    const queued = [coalescer.submit(2), coalescer.submit(3)].map((p) => p.finally(() => (settled += 1)));
    await Promise.resolve();
    expect(settled).toBe(0);
    failing = true;
    const due = scheduled;
    scheduled = [];
    for (const flush of due) flush();
    await expect(Promise.allSettled(queued)).resolves.toEqual([
      { status: "rejected", reason: new Error("storage failed") },
      { status: "rejected", reason: new Error("storage failed") },
    ]);
  });
});
