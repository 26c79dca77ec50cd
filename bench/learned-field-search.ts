/**
 * The two searches a first step makes that grow with taught traffic, at 10,000 tools with every
 * learned field full (issue 45), in Node, on the same fields, tasks and queries as
 * `route-throughput --learned=8`: the learned field's pruned search (retrieval/max-score.ts)
 * against scoring every match (checks both give the same answers; postings read, tools scored
 * exactly and CPU per search of each), and the task memory's scan of similar earlier tasks
 * (task-memory.ts; postings read and CPU per scan, pruned and reading every task that shares a word).
 *
 *   node bench/run.mjs learned-field-search [--size=10000] [--learned=8] [--queries=400] [--rounds=3] [--limit=50]
 *
 * Fields: every tool learns `learned` one-tool trajectories' tasks written from its own text
 * (lib/learned-teaching.ts), each task's shape terms at explicit weight, as the tenant object's
 * attribution gives a one-tool trajectory; the task memory remembers the same tasks. Queries:
 * StableToolBench's retrieval queries, as routed (each scan a new text: the memory's memo misses).
 */
import { attributeRequest } from "../functions/toolnet/learned-attribution";
import { LearnedField } from "../functions/toolnet/retrieval/learned-field";
import { FIRST_STEP_MIN_SIMILARITY, type RememberedTask, TaskMemory } from "../functions/toolnet/task-memory";
import { benchQueries } from "./lib/bench-tenants";
import { teachingTrajectories } from "./lib/learned-teaching";
import { machineLine, seededRandom, shuffle, summary } from "./lib/stats";
import { corpusItems, toolItems } from "./lib/tool-corpus";

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

/** Two fields taught the same tasks: one pruning, one scoring every match. */
function taughtFields(tasks: readonly RememberedTask[]): { pruned: LearnedField; every: LearnedField } {
  const pruned = new LearnedField();
  const every = new LearnedField({ prune: false });
  for (const { id, tools, task } of tasks) {
    for (const [tool, weights] of attributeRequest(task, { tools }, "explicit", () => [])) {
      pruned.set(id, tool, weights);
      every.set(id, tool, weights);
    }
  }
  return { pruned, every };
}

/** A task memory whose scans' postings read show (the class's seam). */
class CountedMemory extends TaskMemory {
  get read(): number {
    return this.visited;
  }
}

/** The same, reading every task that shares a word (the pruned scan's reference). */
class ExhaustiveMemory extends CountedMemory {
  protected override readonly exhaustive = true;
}

/** CPU ms per first-step scan (8 neighbours at the first step's similarity) over `rounds` passes of `queries`, and postings read per scan. */
function timedScans(memory: CountedMemory, queries: readonly string[], rounds: number): { cpuMs: number; postings: number } {
  const passes: number[] = [];
  const before = memory.read;
  for (let round = 0; round < rounds; round += 1) {
    const t0 = process.cpuUsage();
    for (const query of queries) memory.nearest(`${query} r${round}`, 8, FIRST_STEP_MIN_SIMILARITY);
    const used = process.cpuUsage(t0);
    passes.push((used.user + used.system) / 1000 / queries.length);
  }
  return { cpuMs: summary(passes).p50, postings: (memory.read - before) / (rounds * queries.length) };
}

/** The similar-task scans, pruned and reading every task that shares a word; checks both find the same tasks. */
function scanFigures(tasks: readonly RememberedTask[], queries: readonly string[], rounds: number): void {
  const pruned = new CountedMemory();
  const every = new ExhaustiveMemory();
  for (const task of tasks) {
    pruned.add(task);
    every.add(task);
  }
  const same = queries.filter(
    (query) => JSON.stringify(pruned.nearest(query, 8, FIRST_STEP_MIN_SIMILARITY)) === JSON.stringify(every.nearest(query, 8, FIRST_STEP_MIN_SIMILARITY)),
  ).length;
  console.log(
    `similar tasks       ${tasks.length} remembered; ${same} of ${queries.length} queries find the same tasks, similarities and order pruned and reading every match`,
  );
  for (const [name, memory] of [
    ["pruned scan", pruned],
    ["every match", every],
  ] as const) {
    const { cpuMs, postings } = timedScans(memory, queries, rounds);
    console.log(`${name.padEnd(20)}${cpuMs.toFixed(3)} ms of CPU a scan; ${postings.toFixed(0)} postings read`);
  }
}

/** CPU ms per search over `rounds` passes of `queries` (the median pass), and the work of one pass. */
function timed(field: LearnedField, queries: readonly string[], size: number, limit: number, rounds: number) {
  const before = { ...field.work };
  for (const query of queries) field.search(query, size, limit);
  const work = { postings: field.work.postings - before.postings, rescored: field.work.rescored - before.rescored };
  const passes: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const t0 = process.cpuUsage();
    for (const query of queries) field.search(query, size, limit);
    const used = process.cpuUsage(t0);
    passes.push((used.user + used.system) / 1000 / queries.length);
  }
  return { cpuMs: summary(passes).p50, postings: work.postings / queries.length, rescored: work.rescored / queries.length };
}

function main(): void {
  const size = Number(option("size", "10000"));
  const perTool = Number(option("learned", "8"));
  const limit = Number(option("limit", "50"));
  const rounds = Number(option("rounds", "3"));
  const t0 = performance.now();
  const items = toolItems(size, corpusItems());
  const tasks = teachingTrajectories(items, perTool, items.length);
  const { pruned, every } = taughtFields(tasks);
  const queries = shuffle(benchQueries(), seededRandom(size)).slice(0, Number(option("queries", "400")));
  console.log(`Learned field search — ${machineLine()}`);
  console.log(
    `fields              ${size} tools, ${perTool} taught tasks each, built in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${queries.length} queries, limit ${limit}`,
  );
  let differ = 0;
  for (const query of queries) if (JSON.stringify(pruned.search(query, size, limit)) !== JSON.stringify(every.search(query, size, limit))) differ += 1;
  console.log(`same answers        ${queries.length - differ} of ${queries.length} queries rank the same tools, scores, order and ties`);
  for (const [name, field] of [
    ["pruned", pruned],
    ["every match", every],
  ] as const) {
    const { cpuMs, postings, rescored } = timed(field, queries, size, limit, rounds);
    console.log(`${name.padEnd(20)}${cpuMs.toFixed(3)} ms of CPU a search; ${postings.toFixed(0)} postings read, ${rescored.toFixed(0)} tools scored exactly`);
  }
  scanFigures(tasks, queries, rounds);
  console.log(machineLine());
}

main();
