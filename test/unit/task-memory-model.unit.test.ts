import { describe, expect, it } from "vitest";
import { seededRandom } from "../../bench/lib/stats";
import { analyze } from "../../functions/toolnet/retrieval/analyze";
import { type NearTask, TaskMemory } from "../../functions/toolnet/task-memory";
import { taskShape } from "../../functions/toolnet/task-shape";

/**
 * The task memory's scan (tasks numbered into slots that are freed and reused, flat postings,
 * pruned by the cosine threshold) against a plain model written here from the definition:
 * cosine of the IDF-weighted term sets of the tasks' shapes, every task compared. Tasks are
 * remembered, replaced and forgotten in a random order between lookups.
 */

const WORDS = ["weather", "forecast", "city", "stock", "price", "share", "movie", "actor", "flight", "hotel", "book", "cancel", "news", "sport", "score"];
const FRAMINGS = ["can you", "i need to", "please", "help me", ""];

function termsOf(text: string): string[] {
  const shape = [...new Set(analyze(taskShape(text)))];
  return shape.length > 0 ? shape : [...new Set(analyze(text))];
}

function modelNearest(tasks: ReadonlyMap<string, { task: string; tools: string[] }>, query: string, neighbours: number, minSimilarity: number): NearTask[] {
  const entries = [...tasks].map(([id, { task, tools }]) => ({ id, tools, terms: termsOf(task) })).filter((e) => e.terms.length > 0);
  const idf = (term: string) => Math.log(1 + (entries.length + 1) / (entries.filter((e) => e.terms.includes(term)).length + 0.5));
  const norm = (terms: readonly string[]) => Math.sqrt(terms.reduce((sum, term) => sum + idf(term) ** 2, 0));
  const queryTerms = termsOf(query);
  const queryNorm = norm(queryTerms);
  if (entries.length === 0 || queryNorm === 0) return [];
  const near: NearTask[] = [];
  for (const { id, tools, terms } of entries) {
    let dot = 0;
    for (const term of queryTerms) if (terms.includes(term)) dot += idf(term) ** 2;
    const similarity = dot / (queryNorm * norm(terms));
    if (dot > 0 && similarity >= minSimilarity) near.push({ id, similarity, tools });
  }
  near.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return near.slice(0, neighbours);
}

function randomTask(random: () => number): string {
  const words = Array.from({ length: 1 + Math.floor(random() * 5) }, () => WORDS[Math.floor(random() * WORDS.length)] ?? "news");
  return `${FRAMINGS[Math.floor(random() * FRAMINGS.length)] ?? ""} ${words.join(" ")}`.trim();
}

describe("the task memory against a plain model of it, as tasks come and go", () => {
  it("finds the model's nearest tasks, similarities, order and ties after every change", () => {
    for (const seed of [1, 2]) {
      const random = seededRandom(seed);
      const memory = new TaskMemory();
      const tasks = new Map<string, { task: string; tools: string[] }>();
      for (let step = 0; step < 800; step += 1) {
        const id = `t${Math.floor(random() * 120)}`;
        if (random() < 0.25) {
          // Forgotten: its slot is freed for the next task.
          memory.remove(id);
          tasks.delete(id);
        } else {
          // Remembered, or replaced when the id is known.
          const task = { task: randomTask(random), tools: [`tool${Math.floor(random() * 10)}`] };
          memory.add({ id, ...task });
          if (termsOf(task.task).length > 0) tasks.set(id, task);
          else tasks.delete(id);
        }
        if (step % 4 !== 0) continue;
        const query = randomTask(random);
        for (const [neighbours, minSimilarity] of [
          [8, 0.35],
          [3, 0.65],
          [50, 0.1],
        ] as const) {
          expect(memory.nearest(query, neighbours, minSimilarity)).toStrictEqual(modelNearest(tasks, query, neighbours, minSimilarity));
        }
      }
    }
  });
});
