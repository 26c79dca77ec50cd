/**
 * The learned field's search at 10,000 tools with every field full (issue 45), in Node: the
 * pruned search (retrieval/max-score.ts) against scoring every match, on the same fields and
 * queries as `route-throughput --learned=8`. Checks both give the same answers, then prints the
 * postings read, tools scored exactly and CPU per search of each.
 *
 *   node bench/run.mjs learned-field-search [--size=10000] [--learned=8] [--queries=400] [--rounds=3] [--limit=50]
 *
 * Fields: every tool learns `learned` one-tool trajectories' tasks written from its own text
 * (lib/learned-teaching.ts), each task's shape terms at explicit weight, as the tenant object's
 * attribution gives a one-tool trajectory. Queries: StableToolBench's retrieval queries, as routed.
 */
import { attributeRequest } from "../functions/toolnet/learned-attribution";
import { LearnedField } from "../functions/toolnet/retrieval/learned-field";
import { benchQueries } from "./lib/bench-tenants";
import { teachingTrajectories } from "./lib/learned-teaching";
import { machineLine, seededRandom, shuffle, summary } from "./lib/stats";
import { corpusItems, toolItems } from "./lib/tool-corpus";

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

/** Two fields taught the same tasks: one pruning, one scoring every match. */
function taughtFields(size: number, perTool: number): { pruned: LearnedField; every: LearnedField } {
  const pruned = new LearnedField();
  const every = new LearnedField({ prune: false });
  const items = toolItems(size, corpusItems());
  for (const { id, tools, task } of teachingTrajectories(items, perTool, items.length)) {
    for (const [tool, weights] of attributeRequest(task, { tools }, "explicit", () => [])) {
      pruned.set(id, tool, weights);
      every.set(id, tool, weights);
    }
  }
  return { pruned, every };
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
  const { pruned, every } = taughtFields(size, perTool);
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
  console.log(machineLine());
}

main();
