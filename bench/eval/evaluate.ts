/**
 * The ATC evaluation: each task of a set is sent to `POST /v1/runs` of the real service, and the
 * final attempt's trace is scored with the paper's metrics (`functions/chain/metrics.ts`):
 * Success, Correct Path, Correct Tool Precision, plus the cost of each run (tokens, model calls,
 * attempts, wall time).
 */
import { scoreSet, scoreTask, type CallRecord, type SetScore, type TaskScore } from "../../functions/chain/metrics";
import { createTenant, type TestService } from "../../test/helpers/service";
import { loadSet, type RawTask, type SetName, type TaskSetData } from "./datasets";
import type { ScriptedTask } from "./scripted-programs";

/** `POST /v1/runs` accepts at most this many named tools (functions/http/endpoints/runs.ts). */
export const MAX_RUN_TOOLS = 50;

export interface EvalTask extends RawTask {
  /** Gold tool names (RestBench operations mapped through the registry), ordered, repeats kept. */
  goldTools: string[];
  /** Gold entries that no registered tool answers to (data problems), reported, never silently dropped. */
  unknownGold: string[];
  /** Candidate tools sent with the run; undefined = routing chooses. */
  candidates: string[] | undefined;
  /** Gold tools added to `api_list` because the data file's list lacks them. */
  addedGold: string[];
}

export interface PreparedSet {
  name: SetName;
  tenant: { id: string; key: string };
  tasks: EvalTask[];
  toolCount: number;
  importWarnings: number;
}

export interface CandidateOptions {
  /** Let the service's routing choose the candidates instead of sending them. */
  routing: boolean;
}

interface ToolSummary {
  name: string;
  operation: string;
  source: string;
}

/** A tiny deterministic PRNG (mulberry32) seeded from a string, for reproducible distractor picks. */
function seededRandom(seed: string): () => number {
  let h = 1779033703 ^ seed.length;
  for (let i = 0; i < seed.length; i++) {
    h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * RestBench candidates: every tool of the set. The run API takes at most 50 named tools and the
 * set has 54, so when the set is larger the gold tools are kept and the rest is a seeded random
 * pick of the others (per task, reproducible), filling up to 50.
 */
export function allToolsCandidates(allTools: readonly string[], gold: readonly string[], seed: string): string[] {
  const unique = [...new Set(allTools)];
  if (unique.length <= MAX_RUN_TOOLS) return unique;
  const goldSet = new Set(gold.filter((g) => unique.includes(g)));
  const others = unique.filter((t) => !goldSet.has(t));
  const random = seededRandom(seed);
  for (let i = others.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [others[i], others[j]] = [others[j] as string, others[i] as string];
  }
  const keep = new Set([...goldSet, ...others.slice(0, MAX_RUN_TOOLS - goldSet.size)]);
  // Registry order, so the prompt does not reveal which tools are gold.
  return unique.filter((t) => keep.has(t));
}

async function expectOk<T>(response: Promise<{ status: number; body: T }>, what: string, status = 200): Promise<T> {
  const r = await response;
  if (r.status !== status) throw new Error(`${what}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
  return r.body;
}

/** Create a fresh tenant for the set, import its tools, and resolve every task's gold and candidates. */
export async function prepareSet(service: TestService, data: TaskSetData, options: CandidateOptions, tenantId: string): Promise<PreparedSet> {
  const tenant = await createTenant(service, tenantId);
  let importWarnings = 0;
  for (const body of data.imports) {
    const report = await expectOk(service.json<{ warnings: string[] }>("POST", "/v1/tools/import", { key: tenant.key, body }), `import ${body.source}`);
    importWarnings += report.warnings.length;
  }
  const { tools } = await expectOk(service.json<{ tools: ToolSummary[] }>("GET", "/v1/tools", { key: tenant.key }), "list tools");
  const byOperation = new Map<string, string>();
  for (const t of tools) byOperation.set(t.operation, t.name);
  const names = new Set(tools.map((t) => t.name));
  const allNames = tools.map((t) => t.name);

  const tasks = data.tasks.map((task): EvalTask => {
    const resolved = task.gold.map((g) => (data.name === "restbench" ? byOperation.get(g) : names.has(g) ? g : undefined));
    const goldTools = resolved.filter((n): n is string => n !== undefined);
    const unknownGold = task.gold.filter((_, i) => resolved[i] === undefined);
    let candidates: string[] | undefined;
    let addedGold: string[] = [];
    if (!options.routing) {
      if (data.name === "restbench") {
        candidates = allToolsCandidates(allNames, goldTools, task.id);
      } else {
        const listed = (task.apiList ?? []).filter((n) => names.has(n));
        addedGold = [...new Set(goldTools.filter((g) => !listed.includes(g)))];
        candidates = [...new Set([...listed, ...addedGold])].slice(0, MAX_RUN_TOOLS);
      }
    }
    return { ...task, goldTools, unknownGold, candidates, addedGold };
  });
  return { name: data.name, tenant, tasks, toolCount: tools.length, importWarnings };
}

// ----------------------------------------------------------------------------------------------
// One run

interface RunTrace {
  tool: string;
  ok: boolean;
  sent: boolean;
  durationMs: number;
}

/** The part of a stored run (functions/services/start-run.ts `StoredRun`) the evaluation reads. */
export interface RunRecord {
  id: string;
  status: "succeeded" | "failed";
  answer?: unknown;
  candidates: string[];
  candidateSource: string;
  attempts: {
    attempt: number;
    ok: boolean;
    error?: { kind: string; message: string };
    attributedTool?: string;
    trace: RunTrace[];
    durationMs: number;
    firstCallMs?: number;
  }[];
  modelCalls: { purpose: string }[];
  usage: { promptTokens: number; completionTokens: number; totalTokens: number };
  timings: { totalMs: number };
}

export interface TaskResult {
  set: SetName;
  id: string;
  query: string;
  gold: string[];
  candidates: number;
  candidateSource: string;
  /** Whether every gold tool was among the run's candidates (routing can miss some). */
  goldInCandidates: boolean;
  status: "succeeded" | "failed" | "error";
  attempts: number;
  modelCalls: number;
  tokens: number;
  wallMs: number;
  /** The final attempt's calls, in order. */
  calls: CallRecord[];
  score: TaskScore;
  answer?: unknown;
  /** Service-side failure (non-201 answer) or the final attempt's error. */
  error?: string;
  runId?: string;
  run?: RunRecord;
}

export interface RunOptions {
  maxAttempts: number;
  /** Give up waiting for one run after this long (recorded as an error); default 10 minutes. */
  taskTimeoutMs?: number;
}

/** Run one task through `POST /v1/runs` and score its final attempt. */
export async function runEvalTask(service: TestService, prepared: PreparedSet, task: EvalTask, options: RunOptions): Promise<TaskResult> {
  const started = performance.now();
  const body = { task: task.query, maxAttempts: options.maxAttempts, ...(task.candidates === undefined ? {} : { tools: task.candidates }) };
  let response: { status: number; body: unknown };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeoutMs = options.taskTimeoutMs ?? 600_000;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    response = await Promise.race([service.json("POST", "/v1/runs", { key: prepared.tenant.key, body }), timeout]);
  } catch (error) {
    response = { status: 0, body: { detail: error instanceof Error ? error.message : String(error) } };
  } finally {
    clearTimeout(timer);
  }
  const wallMs = performance.now() - started;
  const base = { set: task.set, id: task.id, query: task.query, gold: task.goldTools, wallMs };
  if (response.status !== 201) {
    const detail = (response.body as { detail?: string } | null)?.detail ?? JSON.stringify(response.body).slice(0, 300);
    return {
      ...base,
      candidates: task.candidates?.length ?? 0,
      candidateSource: task.candidates === undefined ? "routing" : "request",
      // Routing's choice is unknown when the service answered no run.
      goldInCandidates: task.candidates !== undefined && task.goldTools.every((g) => task.candidates?.includes(g) === true),
      status: "error",
      attempts: 0,
      modelCalls: 0,
      tokens: 0,
      calls: [],
      score: scoreTask(task.goldTools, []),
      error: `HTTP ${response.status}: ${detail}`,
    };
  }
  const run = response.body as RunRecord;
  const last = run.attempts[run.attempts.length - 1];
  const calls: CallRecord[] = (last?.trace ?? []).map((t) => ({ tool: t.tool, ok: t.ok }));
  const candidateSet = new Set(run.candidates);
  return {
    ...base,
    candidates: run.candidates.length,
    candidateSource: run.candidateSource,
    goldInCandidates: task.goldTools.every((g) => candidateSet.has(g)),
    status: run.status,
    attempts: run.attempts.length,
    modelCalls: run.modelCalls.length,
    tokens: run.usage.totalTokens,
    calls,
    score: scoreTask(task.goldTools, calls),
    ...(run.answer === undefined ? {} : { answer: run.answer }),
    ...(last?.error === undefined ? {} : { error: `${last.error.kind}: ${last.error.message}` }),
    runId: run.id,
    run,
  };
}

// ----------------------------------------------------------------------------------------------
// A set

export interface SetSummary extends SetScore {
  set: SetName;
  meanTokens: number;
  meanModelCalls: number;
  meanAttempts: number;
  meanWallMs: number;
  p50WallMs: number;
  /** Tasks the service did not answer with a run (HTTP errors). */
  errors: number;
  /** Tasks whose gold tools were not all among the candidates. */
  goldMissing: number;
}

export interface SetResult {
  set: SetName;
  tenantId: string;
  toolCount: number;
  tasks: TaskResult[];
  summary: SetSummary;
  /** Tasks with gold entries the registry does not know, and api_list gaps filled. */
  dataNotes: string[];
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

const mean = (values: readonly number[]): number => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);

export function summarize(set: SetName, tasks: readonly TaskResult[]): SetSummary {
  return {
    set,
    ...scoreSet(tasks.map((t) => t.score)),
    meanTokens: mean(tasks.map((t) => t.tokens)),
    meanModelCalls: mean(tasks.map((t) => t.modelCalls)),
    meanAttempts: mean(tasks.map((t) => t.attempts)),
    meanWallMs: mean(tasks.map((t) => t.wallMs)),
    p50WallMs: percentile(
      tasks.map((t) => t.wallMs),
      50,
    ),
    errors: tasks.filter((t) => t.status === "error").length,
    goldMissing: tasks.filter((t) => !t.goldInCandidates).length,
  };
}

export interface SetOptions extends CandidateOptions, RunOptions {
  /** Only these task ids (scripted mode: the tasks that have programs). */
  only?: readonly string[];
  limit?: number;
  concurrency?: number;
  tenantId?: string;
  /** Progress, one line per finished task. */
  progress?: (result: TaskResult, index: number, total: number) => void;
}

/** Select the tasks of a set for a run of the evaluation. */
export function selectTasks(tasks: readonly EvalTask[], options: Pick<SetOptions, "only" | "limit">): EvalTask[] {
  let chosen =
    options.only === undefined
      ? [...tasks]
      : options.only.map((id) => {
          const task = tasks.find((t) => t.id === id);
          if (task === undefined) throw new Error(`no task ${id}`);
          return task;
        });
  if (options.limit !== undefined) chosen = chosen.slice(0, options.limit);
  return chosen;
}

/** Prepare a set in a fresh tenant and run its tasks. */
export async function evaluateSet(service: TestService, name: SetName, options: SetOptions): Promise<SetResult> {
  const data = loadSet(name);
  const prepared = await prepareSet(service, data, options, options.tenantId ?? `eval-${name}-${Date.now().toString(36)}`);
  const tasks = selectTasks(prepared.tasks, options);
  const results: TaskResult[] = new Array<TaskResult>(tasks.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const index = next++;
      const task = tasks[index] as EvalTask;
      const result = await runEvalTask(service, prepared, task, options);
      results[index] = result;
      options.progress?.(result, ++done, tasks.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, worker));
  const dataNotes = tasks.flatMap((t) => [
    ...(t.unknownGold.length > 0 ? [`${t.id}: gold not in the registry: ${t.unknownGold.join(", ")}`] : []),
    ...(t.addedGold.length > 0 ? [`${t.id}: gold missing from api_list, added as candidates: ${t.addedGold.join(", ")}`] : []),
  ]);
  return { set: name, tenantId: prepared.tenant.id, toolCount: prepared.toolCount, tasks: results, summary: summarize(name, results), dataNotes };
}

/** Check scripted tasks against the data files: the query must be the file's query. */
export function checkScriptedTasks(scripted: readonly ScriptedTask[], data: TaskSetData): string[] {
  return scripted.flatMap((s) => {
    const task = data.tasks.find((t) => t.id === s.id);
    if (task === undefined) return [`${s.id}: no such task in ${data.name}`];
    if (task.query !== s.query) return [`${s.id}: query differs from the data file`];
    return [];
  });
}

// ----------------------------------------------------------------------------------------------
// Tables

function pad(text: string, width: number, right = false): string {
  if (text.length >= width) return text;
  return right ? text.padStart(width) : text.padEnd(width);
}

function table(header: string[], rows: string[][], rightAligned: boolean[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => pad(c, widths[i] ?? 0, rightAligned[i] ?? false))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

const fmt = (n: number, digits = 0): string => n.toFixed(digits);

export function formatTaskTable(result: SetResult, notes: ReadonlyMap<string, string> = new Map()): string {
  const header = ["task", "status", "succ", "path", "prec", "att", "calls", "model", "tokens", "wall ms", "cand", "note"];
  const rows = result.tasks.map((t) => [
    t.id,
    t.status,
    String(t.score.success),
    fmt(t.score.path, 2),
    fmt(t.score.precision, 2),
    String(t.attempts),
    String(t.calls.length),
    String(t.modelCalls),
    String(t.tokens),
    fmt(t.wallMs),
    `${t.candidates}${t.goldInCandidates ? "" : "!"}`,
    (notes.get(t.id) ?? (t.status === "error" ? (t.error ?? "") : "")).replace(/\s+/g, " ").slice(0, 80),
  ]);
  return table(header, rows, [false, false, true, true, true, true, true, true, true, true, true, false]);
}

export function formatSummaryTable(summaries: readonly SetSummary[]): string {
  const header = ["set", "tasks", "Success%", "Path%", "Prec%", "tokens/task", "model calls/task", "attempts/task", "wall ms/task", "p50 wall ms", "errors"];
  const rows = summaries.map((s) => [
    s.set,
    String(s.tasks),
    fmt(s.successPct, 1),
    fmt(s.pathPct, 1),
    fmt(s.precisionPct, 1),
    fmt(s.meanTokens),
    fmt(s.meanModelCalls, 2),
    fmt(s.meanAttempts, 2),
    fmt(s.meanWallMs),
    fmt(s.p50WallMs),
    String(s.errors),
  ]);
  return table(header, rows, [false, true, true, true, true, true, true, true, true, true, true]);
}
