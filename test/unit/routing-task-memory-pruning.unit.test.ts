import { describe, expect, it } from "vitest";
import { seededRandom } from "../../bench/lib/stats";
import { type RememberedTask, TaskMemory } from "../../functions/toolnet/task-memory";

/**
 * The task memory's pruned scan (rare words first; common words looked up only for the tasks
 * that can still be similar enough) against reading every task that shares a word, on memories
 * shaped like taught traffic: framing words in most tasks, the rest rarer and rarer.
 */

const SYLLABLES = ["ka", "lo", "mi", "nu", "re", "sa", "ti", "vo"];
const WORDS = SYLLABLES.flatMap((a) => SYLLABLES.flatMap((b) => SYLLABLES.flatMap((c) => SYLLABLES.map((d) => `${a}${b}${c}${d}`))));
const FRAMINGS = ["can you help me", "i need to", "please", "i want to", "could you"];

function skewedTask(random: () => number): string {
  const count = 3 + Math.floor(random() * 12);
  // A Zipf-like law over the words: rank r with weight 1 / (r + 1).
  const words = Array.from({ length: count }, () => WORDS[Math.min(WORDS.length - 1, Math.floor(Math.exp(random() * Math.log(WORDS.length)) - 1))]);
  return `${FRAMINGS[Math.floor(random() * FRAMINGS.length)] ?? ""} ${words.join(" ")}`;
}

/** Counts what the scans read (the class's seams). */
class PrunedMemory extends TaskMemory {
  get read(): number {
    return this.visited;
  }
}

class ExhaustiveMemory extends PrunedMemory {
  protected override readonly exhaustive = true;
}

describe("the task memory's pruned scan", () => {
  const random = seededRandom(45);
  // Some tasks are taught again with the same words (ties in similarity, broken by id).
  const tasks: RememberedTask[] = Array.from({ length: 3_000 }, (_, i) => ({ id: `t${i}`, task: skewedTask(random), tools: [`tool${i % 700}`] }));
  for (let i = 0; i < 100; i += 1) tasks.push({ id: `again${i}`, task: tasks[i * 3]?.task ?? "", tools: ["again"] });
  const pruned = new PrunedMemory();
  const every = new ExhaustiveMemory();
  for (const task of tasks) {
    pruned.add(task);
    every.add(task);
  }
  pruned.remove("t7");
  every.remove("t7");
  const queries = [...Array.from({ length: 100 }, () => skewedTask(random)), ...tasks.slice(0, 30).map((t) => t.task)];

  it("finds exactly the nearest tasks a full scan finds: same ids, similarities, order and ties", () => {
    for (const [neighbours, minSimilarity] of [
      [8, 0.35],
      [9, 0.35],
      [8, 0.65],
      [3, 0.1],
      [50, 0.2],
      [8, 0],
    ] as const) {
      for (const query of queries) expect(pruned.nearest(query, neighbours, minSimilarity)).toStrictEqual(every.nearest(query, neighbours, minSimilarity));
    }
    expect(queries.filter((query) => every.nearest(query, 8, 0.35).length > 0).length).toBeGreaterThan(30);
  });

  it("reads far fewer postings than a full scan", () => {
    const before = { pruned: pruned.read, every: every.read };
    // New texts each time: a memoised lookup reads nothing.
    for (const query of queries) {
      pruned.nearest(`${query} kakakaka`, 8, 0.35);
      every.nearest(`${query} kakakaka`, 8, 0.35);
    }
    expect(every.read - before.every).toBeGreaterThan(0);
    expect(pruned.read - before.pruned).toBeLessThan((every.read - before.every) / 3);
  });
});
