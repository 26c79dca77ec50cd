/**
 * Tokens per routing answer: compact views within a budget against today's full definitions.
 *
 *   npm run bench -- answer-tokens [--skip-build] [--sizes=1000,10000] [--answers=500]
 *
 * Tenants get 1,000 and 10,000 tools (StableToolBench's corpus, then renamed copies;
 * lib/tool-corpus.ts) and ≈ 10 observed successors per tool (StableToolBench's recorded gpt-3.5
 * runs plus seeded random walks), through the HTTP API, in workerd, as route-latency does. Then,
 * for k = 5 and k = 8, `answers` first-step answers (`POST /v1/route`, a random StableToolBench
 * query, no previous tool) and `answers` later-step answers (previous tool = the first tool of a
 * recorded transition a → b, task = that run's query), with the service default budget
 * (2,000 tokens). One auth-only request (`GET /v1/tenant`) is interleaved with every route request,
 * for a latency yardstick within the run.
 *
 * Each answer is counted with o200k_base here (not trusting the service's own figures, which are
 * checked against this count): what it returns (by default its `tools` array as JSON text). The
 * same ranked list (shown tools + `overBudget`, by weight) is then answered locally in every
 * earlier configuration, one rule added at a time, all in this run (`CONFIGURATIONS`): the answer
 * before compact views ("full definitions": `openAiTool` of each local definition, the project's
 * `importToolList` of the very list sent, and `formatPromptBlock` with the old one-line
 * descriptions), the full `tools` array alone, the answer at this branch's start (compact views
 * without `optional-parameters-named-only`, prompt block and tools), tools only, then with
 * `optional-parameters-named-only`, `restating-descriptions-dropped` and
 * `described-defaults-dropped` added one at a time, the last being the service's default now
 * (checked equal to what the service answered). A floor, what no view can go below
 * without dropping required parameters (envelope, name, required parameters with their types and
 * nothing else), says how far a ratio can go.
 *
 * Quality in the same run: first steps, recall@k of StableToolBench's gold tools (those the tenant
 * has) among the tools an answer shows, against among all it ranked; later steps, whether b is the
 * first tool shown / among those shown, against the same over the ranked list. Budgets only ever
 * leave out the lowest-ranked tools, so the two agree unless something went over budget.
 *
 * Time: route p50/p99 through HTTP with an auth-only request as the yardstick, and the answer
 * assembly alone in this process, budgeted against how the answer was built before.
 *
 * Calls: for every tool of the corpus, a call is built from its full definition (openapi-sampler,
 * summarised enums read from their examples); where that validates against the full definition
 * (the safe-call validator), calls built the same way from the compact and the required-only
 * views must validate too, and the full-definition call (every parameter, named-only ones
 * included, as the validator read it) must pass the compact view's shown schema (a client
 * validating against what it was shown does not refuse a named-only parameter).
 *
 * The measuring lives in bench/lib/answer-tokens/ (requests, views and configurations, calls from
 * views, report); this file reads the options, runs the sizes and prints the report.
 */
import { importToolList } from "../functions/tools/list-import";
import { startBenchService } from "./lib/bench-service";
import { machineLine, seconds } from "./lib/stats";
import { corpusItems } from "./lib/tool-corpus";
import type { Cell } from "./lib/answer-tokens/cell";
import { measureSize } from "./lib/answer-tokens/measure";
import {
  printAssemblyTimes,
  printCallsFromViews,
  printConfigurations,
  printQuality,
  printRouteLatency,
  printTokensPerAnswer,
} from "./lib/answer-tokens/report";
import { callsFromViews } from "./lib/answer-tokens/view-calls";
import { queries } from "./lib/answer-tokens/workload";

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

async function main(): Promise<void> {
  const started = performance.now();
  const sizes = option("sizes", "1000,10000").split(",").map(Number);
  const answers = Number(option("answers", "500"));
  if (sizes.some((s) => !Number.isInteger(s) || s < 10 || s > 50_000) || !Number.isInteger(answers) || answers < 1 || answers > 10_000)
    throw new Error("--sizes: 10..50000; --answers: 1..10000");
  console.log(`Tokens per routing answer (o200k_base), compact views + budget vs full definitions — ${machineLine()}`);
  const allQueries = queries();
  const { service } = await startBenchService();
  const cells: Cell[] = [];
  try {
    for (const size of sizes) cells.push(...(await measureSize(service, size, answers, allQueries)));
  } finally {
    await service.dispose();
  }

  printTokensPerAnswer(cells);
  printConfigurations(cells, sizes);
  printQuality(cells);
  printRouteLatency(cells);
  printAssemblyTimes(cells);

  const corpusDefs = importToolList(corpusItems()).tools;
  const calls = callsFromViews(corpusDefs);
  printCallsFromViews(calls);
  if (calls.compactOk !== calls.validFull || calls.requiredOk !== calls.validFull || calls.namedOnlyOk !== calls.namedOnlyTools) process.exitCode = 1;
  console.log(`\n${machineLine()}\ndone in ${seconds(performance.now() - started)}`);
}

await main();
