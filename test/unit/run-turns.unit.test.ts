import { describe, expect, it } from "vitest";
import { RunTurns, STALLED_HEAD_MS } from "../../functions/services/run-turns";

/** `count` runs that each ask for a turn at once; `log` gets `grant:<i>` as each is granted. */
function enter(turns: RunTurns, count: number, log: string[], onGrant: (index: number) => void = () => undefined): Promise<void>[] {
  return Array.from({ length: count }, (_, index) =>
    turns.take().then(() => {
      log.push(`grant:${index}`);
      onGrant(index);
    }),
  );
}

const macrotask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe("RunTurns", () => {
  it("grants turns in the order they were asked for", async () => {
    const turns = new RunTurns();
    const log: string[] = [];
    await Promise.all(enter(turns, 6, log));
    expect(log).toEqual(["grant:0", "grant:1", "grant:2", "grant:3", "grant:4", "grant:5"]);
    expect(turns.waiting).toBe(0);
  });

  it("grants one turn per macrotask: a request that arrives with a burst of runs waits for one phase, not for all", async () => {
    const turns = new RunTurns();
    const log: string[] = [];
    const runs = enter(turns, 10, log);
    // A request arriving right after the burst (a timer is how it reaches the event loop here).
    const request = new Promise<void>((resolve) => setTimeout(() => resolve(void log.push("request")), 0));
    await Promise.all([...runs, request]);
    expect(log).toHaveLength(11);
    expect(log.indexOf("request")).toBeLessThanOrEqual(1);
  });

  it("serves what arrived during a phase before the next phase is granted", async () => {
    const turns = new RunTurns();
    const log: string[] = [];
    // Each phase sees a request arrive while it runs; the request must be answered before the next phase.
    const requests: Promise<void>[] = [];
    await Promise.all(
      enter(turns, 8, log, (index) => requests.push(new Promise((resolve) => setTimeout(() => resolve(void log.push(`request:${index}`)), 0)))),
    );
    await Promise.all(requests);
    expect(log).toHaveLength(16);
    for (let index = 0; index < 7; index++) {
      const answered = log.indexOf(`request:${index}`);
      expect(answered).toBeGreaterThan(log.indexOf(`grant:${index}`));
      expect(answered).toBeLessThan(log.indexOf(`grant:${index + 1}`));
    }
  });

  it("grants a run that asks after the queue went idle in a later macrotask, not at once", async () => {
    const turns = new RunTurns();
    const log: string[] = [];
    const turn = turns.take().then(() => log.push("grant"));
    await Promise.resolve();
    log.push("same macrotask");
    await turn;
    expect(log).toEqual(["same macrotask", "grant"]);
  });

  it("passes by a head that never takes its turn (its request went away), so the queue never stalls", async () => {
    let first = true;
    // The first head's macrotask never comes, as when workerd cancels a gone request's continuations.
    const turns = new RunTurns({
      nextMacrotask: () => {
        if (!first) return macrotask();
        first = false;
        return new Promise<void>(() => undefined);
      },
    });
    const log: string[] = [];
    void turns.take().then(() => log.push("gone"));
    const started = Date.now();
    await Promise.all(enter(turns, 3, log));
    expect(log).toEqual(["grant:0", "grant:1", "grant:2"]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(STALLED_HEAD_MS - 5);
    expect(Date.now() - started).toBeLessThan(STALLED_HEAD_MS * 10);
  });
});
