/**
 * Task memory lookups (task-memory.ts): what a route step pays to ask a tenant's remembered tasks
 * which are like its own, by how many tasks the tenant remembers, and what a chat's later step
 * pays for the same task again (answered from the memory's memo of recent lookups).
 *
 *   npm run bench -- task-memory-lookup
 *
 * StableToolBench's 704 retrieval queries stand for remembered tasks (copied 1, 4 and 16 times);
 * each lookup asks for a query's votes after a tool, at the later step's similarity threshold.
 * CPU time of this process, median and 90th percentile of 300 lookups per size.
 */
import { LATER_STEP_MIN_SIMILARITY, TaskMemory } from "../functions/toolnet/task-memory";
import { int, machineLine, ms, ownCpuMs, percentile, table } from "./lib/stats";
import { readData } from "./lib/tool-corpus";

const LOOKUPS = 300;
const queries = (readData("stabletoolbench/retrieval_queries.json") as { query: string }[]).map((q) => q.query);
console.log(`Task memory lookups — ${machineLine()}`);
const rows: string[][] = [];
for (const copies of [1, 4, 16]) {
  const tasks = Array.from({ length: copies * queries.length }, (_, n) => {
    const i = n % queries.length;
    return { id: `${Math.floor(n / queries.length)}-${i}`, task: queries[i] ?? "", tools: [`t${i % 97}`, `t${(i * 7) % 97}`] };
  });
  const memory = TaskMemory.build(tasks);
  const first: number[] = [];
  const again: number[] = [];
  for (let i = 0; i < LOOKUPS; i += 1) {
    const task = queries[(i * 13) % queries.length] ?? "";
    let t = ownCpuMs();
    memory.votes(task, { tools: { after: "t3" }, minSimilarity: LATER_STEP_MIN_SIMILARITY });
    first.push(ownCpuMs() - t);
    // The chat's next step: the same task, after another tool.
    t = ownCpuMs();
    memory.votes(task, { tools: { after: "t5" }, minSimilarity: LATER_STEP_MIN_SIMILARITY });
    again.push(ownCpuMs() - t);
  }
  const at = (values: number[], p: number) =>
    ms(
      percentile(
        [...values].sort((x, y) => x - y),
        p,
      ),
    );
  rows.push([int(tasks.length), at(first, 50), at(first, 90), at(again, 50), at(again, 90)]);
}
console.log(table(["remembered tasks", "a task's first lookup p50", "p90", "the same task again p50", "p90"], rows));
