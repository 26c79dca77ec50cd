/**
 * The ATC evaluation from the command line (see bench/eval/README.md):
 *
 *   npm run eval -- --scripted                      # hand-written programs, no model needed
 *   EVAL_MODEL_BASE_URL=… EVAL_MODEL_API_KEY=… EVAL_MODEL_NAME=… npm run eval -- --set restbench --limit 20
 *
 * Flags: --set restbench|autotools|all (default all) · --limit N · --scripted · --routing (the
 * service's routing picks the candidates instead of the set's tools / api_list) ·
 * --max-attempts N (default 3) · --concurrency N (default 1) · --task-timeout SECONDS (default
 * 600) · --json FILE · --no-build.
 */
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import buildBundles from "../../test/helpers/global-setup";
import { createScriptedModel } from "../../test/helpers/scripted-model";
import { loadSet, SET_NAMES, type SetName } from "./datasets";
import { checkScriptedTasks, evaluateSet, formatSummaryTable, formatTaskTable, type SetResult, type TaskResult } from "./evaluate";
import { scriptedRules, scriptedTasksFor, SCRIPTED_TASKS, type ScriptedTask } from "./scripted-programs";
import { remoteModelFromEnv, startEvalService, type ModelChoice } from "./service";

export interface CliOptions {
  sets: SetName[];
  limit: number | undefined;
  scripted: boolean;
  routing: boolean;
  maxAttempts: number;
  concurrency: number;
  taskTimeoutMs: number;
  json: string | undefined;
  build: boolean;
}

export function parseArgs(argv: readonly string[]): CliOptions {
  const options: CliOptions = {
    sets: [...SET_NAMES],
    limit: undefined,
    scripted: false,
    routing: false,
    maxAttempts: 3,
    concurrency: 1,
    taskTimeoutMs: 600_000,
    json: undefined,
    build: true,
  };
  const value = (i: number, flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith("--")) throw new Error(`${flag} needs a value`);
    return v;
  };
  const positive = (text: string, flag: string): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag}: expected a positive integer, got ${text}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const take = (): string => inline ?? value(i++, flag);
    switch (flag) {
      case "--set": {
        const set = take();
        if (set === "all") options.sets = [...SET_NAMES];
        else if ((SET_NAMES as readonly string[]).includes(set)) options.sets = [set as SetName];
        else throw new Error(`--set: expected restbench, autotools or all, got ${set}`);
        break;
      }
      case "--limit":
        options.limit = positive(take(), flag);
        break;
      case "--max-attempts":
        options.maxAttempts = positive(take(), flag);
        break;
      case "--concurrency":
        options.concurrency = positive(take(), flag);
        break;
      case "--task-timeout":
        options.taskTimeoutMs = positive(take(), flag) * 1000;
        break;
      case "--json":
        options.json = take();
        break;
      case "--scripted":
        options.scripted = true;
        break;
      case "--routing":
        options.routing = true;
        break;
      case "--no-build":
        options.build = false;
        break;
      case "--help":
      case "-h":
        throw new Error(
          "usage: run-eval [--set restbench|autotools|all] [--limit N] [--scripted] [--routing] [--max-attempts N] [--concurrency N] [--task-timeout SECONDS] [--json FILE] [--no-build]",
        );
      default:
        throw new Error(`unknown argument ${arg}`);
    }
  }
  return options;
}

/** Compare a scripted task's result with what its programs must produce. */
export function scriptedMismatches(task: ScriptedTask, result: TaskResult): string[] {
  const e = task.expected;
  const problems: string[] = [];
  const near = (a: number, b: number) => Math.abs(a - b) < 1e-9;
  if (result.status !== e.status) problems.push(`status ${result.status} ≠ ${e.status}${result.error === undefined ? "" : ` (${result.error})`}`);
  if (result.attempts !== e.attempts) problems.push(`attempts ${result.attempts} ≠ ${e.attempts}`);
  if (result.score.success !== e.success) problems.push(`success ${result.score.success} ≠ ${e.success}`);
  if (!near(result.score.path, e.path)) problems.push(`path ${result.score.path} ≠ ${e.path}`);
  if (!near(result.score.precision, e.precision)) problems.push(`precision ${result.score.precision} ≠ ${e.precision}`);
  return problems;
}

export async function main(argv: readonly string[]): Promise<number> {
  const options = parseArgs(argv);
  if (options.scripted && options.maxAttempts !== 3) console.warn("note: the scripted programs' expected attempts assume --max-attempts 3");
  if (options.build) {
    process.stderr.write("bundling the service and the simulated world (wrangler)…\n");
    buildBundles();
  }
  let choice: ModelChoice;
  if (options.scripted) {
    choice = { kind: "scripted", model: createScriptedModel({ rules: scriptedRules(SCRIPTED_TASKS) }) };
  } else {
    const model = remoteModelFromEnv();
    choice = { kind: "remote", model };
    process.stderr.write(`model: ${model.name} at ${model.baseUrl}\n`);
  }
  const evalService = await startEvalService(choice);
  const results: SetResult[] = [];
  let mismatches = 0;
  try {
    for (const set of options.sets) {
      const scripted = options.scripted ? scriptedTasksFor(set) : [];
      if (options.scripted) {
        const problems = checkScriptedTasks(scripted, loadSet(set));
        if (problems.length > 0) throw new Error(`scripted programs do not match the data: ${problems.join("; ")}`);
      }
      const result = await evaluateSet(evalService.service, set, {
        routing: options.routing,
        maxAttempts: options.maxAttempts,
        concurrency: options.concurrency,
        taskTimeoutMs: options.taskTimeoutMs,
        ...(options.limit === undefined ? {} : { limit: options.limit }),
        ...(options.scripted ? { only: scripted.map((s) => s.id) } : {}),
        progress: (r, i, n) =>
          process.stderr.write(
            `[${set} ${i}/${n}] ${r.id} ${r.status} success=${r.score.success} path=${r.score.path.toFixed(2)} prec=${r.score.precision.toFixed(2)} ${r.wallMs.toFixed(0)} ms\n`,
          ),
      });
      results.push(result);
      // The programs' expected metrics assume the default candidates (all gold tools offered).
      const checkExpected = options.scripted && !options.routing;
      const notes = new Map<string, string>();
      const details: string[] = [];
      for (const task of scripted) {
        const r = result.tasks.find((t) => t.id === task.id);
        if (r === undefined) continue;
        const problems = checkExpected ? scriptedMismatches(task, r) : [];
        mismatches += problems.length > 0 ? 1 : 0;
        notes.set(task.id, problems.length > 0 ? `${task.note}: UNEXPECTED` : checkExpected ? `${task.note} (as expected)` : task.note);
        if (problems.length > 0) details.push(`  ${task.id} UNEXPECTED: ${problems.join("; ")}`);
      }
      console.log(
        `\n${set === "restbench" ? "RestBench TMDB" : "AutoTools (ToolFlow-style)"}: ${result.tasks.length} tasks, ${result.toolCount} tools registered, candidates ${options.routing ? "chosen by routing" : set === "restbench" ? "all tools (gold + seeded pick, max 50)" : "api_list"}`,
      );
      console.log(formatTaskTable(result, notes));
      for (const line of details) console.log(line);
      for (const t of result.tasks) if (t.status === "error" && t.error !== undefined) console.log(`  ${t.id} error: ${t.error.slice(0, 300)}`);
      for (const note of result.dataNotes) console.log(`  data: ${note}`);
    }
    console.log(`\nSummary (${options.scripted ? "scripted model" : choice.kind === "remote" ? choice.model.name : ""}, max ${options.maxAttempts} attempts)`);
    console.log(formatSummaryTable(results.map((r) => r.summary)));
    const { counters } = evalService;
    console.log(
      `model requests: ${counters.modelRequests} for runs, ${counters.evaluatorRequests} ToolNet evaluator (background, not in run usage); refused outbound: ${counters.refused.length}`,
    );
    for (const r of counters.refused.slice(0, 5)) console.log(`  refused ${r.method} ${r.url}`);
    if (options.json !== undefined) {
      const slim = results.map((r) => ({ ...r, tasks: r.tasks.map(({ run: _run, ...t }) => t) }));
      writeFileSync(options.json, JSON.stringify({ options, results: slim }, null, 2));
      console.log(`results written to ${options.json}`);
    }
  } finally {
    await evalService.dispose();
  }
  if (options.scripted && mismatches > 0) {
    console.error(`${mismatches} scripted task(s) did not produce their expected metrics`);
    return 1;
  }
  return 0;
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(2);
    },
  );
}
