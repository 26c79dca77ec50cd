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
 */
import { Validator } from "@cfworker/json-schema";
import { getEncoding } from "js-tiktoken";
import { sample } from "openapi-sampler";
import { DEFAULT_MAX_TOKENS, fitToBudget, toolViews, type AnswerPart, type BudgetedAnswer, type ToolViews } from "../functions/toolnet/answer-budget";
import { COMPACT_LIMITS, compactView, isRequired, REQUIRED_ONLY_LIMITS, requiredOnlyView, type OptionalRule } from "../functions/toolnet/compact-view";
import { END, formatPromptBlock, START, stableToolBenchTrajectories } from "../functions/toolnet/graph";
import { openAiTool, type OpenAiTool } from "../functions/toolnet/openai-tools";
import type { ToolDefinition } from "../functions/tools/definition";
import { importToolList } from "../functions/tools/list-import";
import { validateArguments } from "../functions/tools/safe-call";
import type { TestService } from "../test/helpers/service";
import { setUpTenant, startBenchService } from "./lib/bench-service";
import { corpusItems, readData, recordedTrajectories, syntheticWalks, toolItems, type ListItem } from "./lib/tool-corpus";
import { int, machineLine, ms, percentile, randomInt, seconds, seededRandom, summary, table } from "./lib/stats";

interface Answer {
  via: string;
  candidates: { name: string; weight: number; view?: string }[];
  prompt?: string;
  tools?: OpenAiTool[];
  overBudget: { name: string; weight: number; reason: string }[];
  tokens: { prompt: number; tools: number; total: number; budget: number };
}

interface Query {
  text: string;
  gold: string[];
}

type Step = "first" | "later";

interface Cell {
  size: number;
  k: number;
  step: Step;
  compact: number[];
  /** Tokens per answer in each configuration (CONFIGURATIONS), same ranked lists. */
  configurations: Map<string, number[]>;
  overBudgetAnswers: number;
  overBudgetTools: number;
  /** first: recall@k shown / ranked (per query with gold); later: hit@1 and hit@k shown / ranked. */
  shown1: number;
  ranked1: number;
  shownK: number;
  rankedK: number;
  scored: number;
  routeMs: number[];
  authMs: number[];
  /** Each answer's ranked list, for timing the answer assembly in this process. */
  rankedLists: { previous: string; ranked: { tool: string; weight: number }[] }[];
  defs: ReadonlyMap<string, ToolDefinition>;
}

const DEGREE = 10;
const UNLIMITED_RATE = { perSecond: 10_000, burst: 100_000 };
const encoding = getEncoding("o200k_base");
const tokens = (text: string): number => encoding.encode(text, [], []).length;

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

/** The one-line description routing put in the prompt block before compact views. */
function oldShortDescription(def: ToolDefinition | undefined): string {
  const text = (def?.summary ?? def?.description ?? "").replace(/\s+/g, " ").trim();
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

/** Everything an answer ranked (shown, Finish and over budget), best first. */
function rankedOf(answer: Answer): { tool: string; weight: number }[] {
  return [
    ...answer.candidates.map((c) => ({ tool: c.name === "Finish" ? END : c.name, weight: c.weight })),
    ...answer.overBudget.map((o) => ({ tool: o.name, weight: o.weight })),
  ].sort((a, b) => b.weight - a.weight);
}

/** The answer as the service built it before compact views (route() in tenant-routing.ts then). */
function fullAnswer(
  ranked: readonly { tool: string; weight: number }[],
  previous: string,
  defs: ReadonlyMap<string, ToolDefinition>,
): { prompt: string; tools: OpenAiTool[] } {
  const prompt = formatPromptBlock({
    previous,
    candidates: ranked.map((r) => ({ ...r, exact: r.weight / 1000 })),
    describe: (tool) => oldShortDescription(defs.get(tool)),
  });
  const tools = ranked.flatMap((r) => {
    const def = defs.get(r.tool);
    return def === undefined ? [] : [openAiTool(def)];
  });
  return { prompt, tools };
}

/** The views a tool had at this branch's start: every optional parameter shown with its schema, none of LATER_RULES. */
function branchStartViews(def: ToolDefinition): ToolViews {
  return countedViews(
    compactView(def, { ...COMPACT_LIMITS, optionalParametersShown: Number.POSITIVE_INFINITY }, { without: LATER_RULES }).tool,
    requiredOnlyView(def, REQUIRED_ONLY_LIMITS, { without: LATER_RULES }).tool,
  );
}

/** The rules added after `optional-parameters-named-only`, in the order they were added (README: answer-tokens). */
const LATER_RULES: readonly OptionalRule[] = ["restating-descriptions-dropped", "described-defaults-dropped"];

/** The views with every rule up to and including `last` (undefined: none of LATER_RULES). */
function viewsUpTo(def: ToolDefinition, last: OptionalRule | undefined): ToolViews {
  const without = LATER_RULES.slice(last === undefined ? 0 : LATER_RULES.indexOf(last) + 1);
  return countedViews(compactView(def, COMPACT_LIMITS, { without }).tool, requiredOnlyView(def, REQUIRED_ONLY_LIMITS, { without }).tool);
}

function countedViews(compact: OpenAiTool, requiredOnly: OpenAiTool): ToolViews {
  return { compact, compactTokens: tokens(JSON.stringify(compact)), requiredOnly, requiredOnlyTokens: tokens(JSON.stringify(requiredOnly)) };
}

/** The least a tools entry can be without dropping a required parameter: envelope, name, required parameters' types. */
function floorEntry(def: ToolDefinition): OpenAiTool {
  const required = def.parameters.filter(isRequired);
  if (required.length === 0) return { type: "function", function: { name: def.name, description: "" } };
  const properties = Object.fromEntries(required.map((p) => [p.name, typeof p.schema.type === "string" ? { type: p.schema.type } : {}]));
  return { type: "function", function: { name: def.name, description: "", parameters: { type: "object", properties, required: required.map((p) => p.name) } } };
}

type Ranked = Cell["rankedLists"][number];

/** Which views: this branch's start, after `optional-parameters-named-only`, after each later rule, and the stored views now. */
type ViewKind = "start" | "named-only" | OptionalRule | "now";

/** Views per tool and configuration, computed once per tool (as the service stores them). */
class ViewCache {
  readonly #defs: ReadonlyMap<string, ToolDefinition>;
  readonly #views = new Map<ViewKind, Map<string, ToolViews>>();
  constructor(defs: ReadonlyMap<string, ToolDefinition>) {
    this.#defs = defs;
  }
  views(tool: string, which: ViewKind): ToolViews | undefined {
    const def = this.#defs.get(tool);
    if (def === undefined) return undefined;
    let cache = this.#views.get(which);
    if (cache === undefined) this.#views.set(which, (cache = new Map()));
    let v = cache.get(tool);
    if (v === undefined)
      cache.set(
        tool,
        (v = which === "now" ? toolViews(def) : which === "start" ? branchStartViews(def) : viewsUpTo(def, which === "named-only" ? undefined : which)),
      );
    return v;
  }
}

/** A ranked list answered locally with the given views and parts, as the service would. */
function budgeted(list: Ranked, cache: ViewCache, cell: Cell, which: ViewKind, include: readonly AnswerPart[]): BudgetedAnswer {
  const ranked = list.ranked.map((r) => {
    const v = cache.views(r.tool, which);
    return { tool: r.tool, weight: r.weight, description: oldShortDescription(cell.defs.get(r.tool)), ...(v === undefined ? {} : { views: v }) };
  });
  const result = fitToBudget({ previous: list.previous, ranked, maxTokens: DEFAULT_MAX_TOKENS, include, weights: "fused" });
  if (!result.ok) throw new Error(result.message);
  return result.answer;
}

/** Tokens of what an answer returns, counted here. */
const answerTokens = (answer: { prompt?: string | undefined; tools?: OpenAiTool[] | undefined }): number =>
  (answer.prompt === undefined ? 0 : tokens(answer.prompt)) + (answer.tools === undefined ? 0 : tokens(JSON.stringify(answer.tools)));

/**
 * The configurations every ranked list is answered in, one rule added at a time. Each maps a
 * ranked list to the tokens of what that answer returns.
 */
const CONFIGURATIONS: readonly { name: string; tokens: (list: Ranked, cache: ViewCache, cell: Cell) => number }[] = [
  {
    name: "full definitions + described prompt (before compact views)",
    tokens: (list, _cache, cell) => answerTokens(fullAnswer(list.ranked, list.previous, cell.defs)),
  },
  { name: "full definitions, tools only", tokens: (list, _cache, cell) => answerTokens({ tools: fullAnswer(list.ranked, list.previous, cell.defs).tools }) },
  {
    name: "branch start: compact views, prompt + tools",
    tokens: (list, cache, cell) => answerTokens(budgeted(list, cache, cell, "start", ["tools", "prompt"])),
  },
  { name: "+ include default tools only", tokens: (list, cache, cell) => answerTokens(budgeted(list, cache, cell, "start", ["tools"])) },
  { name: "+ optional-parameters-named-only", tokens: (list, cache, cell) => answerTokens(budgeted(list, cache, cell, "named-only", ["tools"])) },
  {
    name: "+ restating-descriptions-dropped",
    tokens: (list, cache, cell) => answerTokens(budgeted(list, cache, cell, "restating-descriptions-dropped", ["tools"])),
  },
  { name: "+ described-defaults-dropped (service default now)", tokens: (list, cache, cell) => answerTokens(budgeted(list, cache, cell, "now", ["tools"])) },
  {
    name: "  (now, with prompt: include tools + prompt)",
    tokens: (list, cache, cell) => answerTokens(budgeted(list, cache, cell, "now", ["tools", "prompt"])),
  },
  { name: "  (now, prompt alone: eq. 4 list)", tokens: (list, cache, cell) => answerTokens(budgeted(list, cache, cell, "now", ["prompt"])) },
  {
    name: "floor: envelope + name + required types only",
    tokens: (list, _cache, cell) =>
      tokens(
        JSON.stringify(
          list.ranked.flatMap((r) => {
            const def = cell.defs.get(r.tool);
            return def === undefined ? [] : [floorEntry(def)];
          }),
        ),
      ),
  },
];
const BEFORE = CONFIGURATIONS[0]?.name ?? "";
const SERVICE_DEFAULT = CONFIGURATIONS.find((c) => c.name.endsWith("(service default now)"))?.name ?? "";
const FULL_TOOLS = CONFIGURATIONS[1]?.name ?? "";

/** Every configuration's tokens for each of the cell's ranked lists. */
function configurationTokens(cell: Cell): void {
  const cache = new ViewCache(cell.defs);
  for (const configuration of CONFIGURATIONS)
    cell.configurations.set(
      configuration.name,
      cell.rankedLists.map((list) => configuration.tokens(list, cache, cell)),
    );
}

/**
 * The answer assembly alone, in this process, on the run's own ranked lists: today's default
 * (stored views looked up, fitToBudget with exact counts, tools only) against this branch's start
 * (views without named-only parameters, prompt block and tools) and before compact views (full
 * entries and the prompt block with descriptions). Each serialises what it returns.
 */
function assemblyTimes(cell: Cell): { now: number[]; start: number[]; before: number[] } {
  const cache = new ViewCache(cell.defs);
  for (const list of cell.rankedLists)
    for (const r of list.ranked) {
      cache.views(r.tool, "now");
      cache.views(r.tool, "start");
    }
  const time = (run: () => unknown): number => {
    const t = performance.now();
    JSON.stringify(run());
    return performance.now() - t;
  };
  const now = (list: Ranked) => time(() => budgeted(list, cache, cell, "now", ["tools"]));
  const start = (list: Ranked) => time(() => budgeted(list, cache, cell, "start", ["tools", "prompt"]));
  const before = (list: Ranked) => time(() => fullAnswer(list.ranked, list.previous, cell.defs));
  for (const list of cell.rankedLists.slice(0, 100)) {
    now(list);
    start(list);
    before(list);
  }
  const out = { now: [] as number[], start: [] as number[], before: [] as number[] };
  for (const list of cell.rankedLists) {
    out.now.push(now(list));
    out.start.push(start(list));
    out.before.push(before(list));
  }
  return out;
}

/** StableToolBench queries with their gold tools, named as the tenant names them. */
function queries(): Query[] {
  const ids = (readData("stabletoolbench/api_corpus.json") as { id: string }[]).map((e) => e.id);
  const names = corpusItems().map((item) => item.name);
  const byId = new Map(ids.map((id, i) => [id, names[i] ?? ""]));
  return (readData("stabletoolbench/retrieval_queries.json") as { query: string; relevant_api_ids: string[] }[]).map((q) => ({
    text: q.query,
    gold: [...new Set(q.relevant_api_ids.map((id) => byId.get(id) ?? ""))].filter((n) => n !== ""),
  }));
}

/** Recorded transitions a → b with both tools in the tenant, each with its run's query text. */
function transitions(names: ReadonlySet<string>): { previous: string; next: string; task: string }[] {
  const texts = new Map(
    (readData("stabletoolbench/retrieval_queries.json") as { group: string; query_id: number; query: string }[]).map((q) => [
      `stabletoolbench:${q.group}:${q.query_id}`,
      q.query,
    ]),
  );
  const out: { previous: string; next: string; task: string }[] = [];
  for (const t of stableToolBenchTrajectories(readData("stabletoolbench/gpt35_tool_sequences.json")).trajectories) {
    for (let i = 0; i + 1 < t.tools.length; i += 1) {
      const [previous, next] = [t.tools[i] ?? "", t.tools[i + 1] ?? ""];
      if (previous !== next && names.has(previous) && names.has(next)) out.push({ previous, next, task: texts.get(t.id) ?? previous });
    }
  }
  return out;
}

async function timedJson<T>(service: TestService, method: string, path: string, key: string, body?: unknown): Promise<{ ms: number; body: T }> {
  const t0 = performance.now();
  const response = await service.fetch(path, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const elapsed = performance.now() - t0;
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return { ms: elapsed, body: JSON.parse(text) as T };
}

async function measureSize(service: TestService, size: number, answers: number, allQueries: readonly Query[]): Promise<Cell[]> {
  const items: ListItem[] = toolItems(size, corpusItems());
  const names = items.map((i) => i.name);
  const nameSet = new Set(names);
  const trajectories = [...recordedTrajectories(nameSet), ...syntheticWalks(names, DEGREE, size)];
  const defs = new Map(importToolList(items).tools.map((d) => [d.name, d]));
  const setup = await setUpTenant(service, `bench-answer-${size}`, items, trajectories);
  // A sequential client on an idle machine passes the default read and routing rates; this
  // bench measures answers, not quotas.
  const quotas = await service.json("PUT", "/v1/settings/quotas", { key: setup.key, body: { rates: { reads: UNLIMITED_RATE, routing: UNLIMITED_RATE } } });
  if (quotas.status !== 200) throw new Error(`quota update failed: ${quotas.status} ${JSON.stringify(quotas.body).slice(0, 300)}`);
  console.log(
    `[${int(size)} tools] import ${seconds(setup.toolImportMs)} (compact views and their token counts computed there), trajectories ${seconds(setup.trajectoryImportMs)}`,
  );
  const steps = transitions(nameSet);
  const scoredQueries = allQueries.filter((q) => q.gold.some((g) => nameSet.has(g)));
  const random = seededRandom(size);
  const cells: Cell[] = [];
  for (const k of [5, 8]) {
    for (const step of ["first", "later"] as const) {
      const cell: Cell = {
        size,
        k,
        step,
        compact: [],
        configurations: new Map(),
        overBudgetAnswers: 0,
        overBudgetTools: 0,
        shown1: 0,
        ranked1: 0,
        shownK: 0,
        rankedK: 0,
        scored: 0,
        routeMs: [],
        authMs: [],
        rankedLists: [],
        defs,
      };
      for (let i = 0; i < answers; i += 1) {
        let body: Record<string, unknown>;
        let gold: string[] = [];
        let previous = START;
        if (step === "first") {
          const pool = scoredQueries.length > 0 && i % 2 === 0 ? scoredQueries : allQueries;
          const query = pool[randomInt(random, pool.length)] as Query;
          gold = query.gold.filter((g) => nameSet.has(g));
          body = { task: query.text, k };
        } else {
          const transition = steps[randomInt(random, steps.length)] ?? { previous: names[0] ?? "", next: "", task: "" };
          previous = transition.previous;
          gold = [transition.next];
          body = { task: transition.task, previousTool: previous, k };
        }
        const routed = await timedJson<Answer>(service, "POST", "/v1/route", setup.key, body);
        cell.authMs.push((await timedJson(service, "GET", "/v1/tenant", setup.key)).ms);
        cell.routeMs.push(routed.ms);
        const answer = routed.body;
        const promptTokens = answer.prompt === undefined ? 0 : tokens(answer.prompt);
        const toolsTokens = answer.tools === undefined ? 0 : tokens(JSON.stringify(answer.tools));
        if (promptTokens !== answer.tokens.prompt || toolsTokens !== answer.tokens.tools)
          throw new Error(`reported tokens ${JSON.stringify(answer.tokens)} ≠ counted ${promptTokens} + ${toolsTokens}`);
        if (promptTokens + toolsTokens > answer.tokens.budget)
          throw new Error(`answer over its budget: ${promptTokens + toolsTokens} > ${answer.tokens.budget}`);
        cell.compact.push(promptTokens + toolsTokens);
        cell.rankedLists.push({ previous, ranked: rankedOf(answer) });
        if (answer.overBudget.length > 0) cell.overBudgetAnswers += 1;
        cell.overBudgetTools += answer.overBudget.length;
        if (gold.length === 0) continue;
        const shown = (answer.tools ?? []).map((t) => t.function.name);
        const ranked = [...answer.candidates.filter((c) => c.name !== "Finish"), ...answer.overBudget].sort((a, b) => b.weight - a.weight).map((c) => c.name);
        cell.scored += 1;
        if (step === "first") {
          const recall = (list: string[]) => gold.filter((g) => list.includes(g)).length / gold.length;
          cell.shownK += recall(shown);
          cell.rankedK += recall(ranked);
        } else {
          const [truth] = gold;
          cell.shown1 += shown[0] === truth ? 1 : 0;
          cell.ranked1 += ranked[0] === truth ? 1 : 0;
          cell.shownK += shown.includes(truth ?? "") ? 1 : 0;
          cell.rankedK += ranked.includes(truth ?? "") ? 1 : 0;
        }
      }
      configurationTokens(cell);
      const local = cell.configurations.get(SERVICE_DEFAULT) ?? [];
      const differs = local.findIndex((n, i) => n !== cell.compact[i]);
      if (differs >= 0)
        throw new Error(`answer ${differs}: the local rebuild of the service default has ${local[differs]} tokens, the service's ${cell.compact[differs]}`);
      cells.push(cell);
      const c = summary(cell.compact);
      console.log(
        `[${int(size)} tools] k=${k} ${step}: ${cell.compact.length} answers, mean ${int(c.mean)} tokens (before compact views ${int(summary(cell.configurations.get(BEFORE) ?? []).mean)})`,
      );
    }
  }
  return cells;
}

/** What a tools entry without `parameters` takes (rule "empty-parameters-omitted"): no arguments. */
const NO_PARAMETERS = { type: "object", properties: {} };

/** A value a model would send for a schema it is shown (summarised enums: their first example). */
function valueFor(schema: Record<string, unknown>): unknown {
  const example = /One of [\d,]+ values, e\.g\. ("[^"]*"|[^,]+),/.exec(String(schema.description ?? ""))?.[1];
  if (example !== undefined) return JSON.parse(example) as unknown;
  if (schema.type === "object" && typeof schema.properties === "object" && schema.properties !== null) {
    return Object.fromEntries(Object.entries(schema.properties as Record<string, Record<string, unknown>>).map(([name, sub]) => [name, valueFor(sub)]));
  }
  return sample(schema as never, { skipReadOnly: true });
}

function callsFromViews(defs: readonly ToolDefinition[]): {
  tools: number;
  validFull: number;
  compactOk: number;
  requiredOk: number;
  namedOnlyTools: number;
  namedOnlyOk: number;
  failures: string[];
} {
  const out = { tools: defs.length, validFull: 0, compactOk: 0, requiredOk: 0, namedOnlyTools: 0, namedOnlyOk: 0, failures: [] as string[] };
  for (const def of defs) {
    const fullCall = valueFor(openAiTool(def).function.parameters ?? NO_PARAMETERS) as Record<string, unknown>;
    const checked = validateArguments(def, fullCall);
    if (!checked.ok) continue;
    out.validFull += 1;
    const view = compactView(def);
    if (view.rules.includes("optional-parameters-named-only")) {
      // The full call sets every parameter, named-only ones too (as the API reads it: query text
      // such as "10" for a number already converted): what was shown must not refuse it.
      out.namedOnlyTools += 1;
      const shown = new Validator((view.tool.function.parameters ?? NO_PARAMETERS) as never, "2020-12", false).validate(checked.values);
      if (shown.valid) out.namedOnlyOk += 1;
      else out.failures.push(`${def.name} (named-only parameters refused by the shown schema): ${JSON.stringify(shown.errors[0]).slice(0, 200)}`);
    }
    const compact = validateArguments(def, valueFor(compactView(def).tool.function.parameters ?? NO_PARAMETERS) as Record<string, unknown>);
    const required = validateArguments(def, valueFor(requiredOnlyView(def).tool.function.parameters ?? NO_PARAMETERS) as Record<string, unknown>);
    if (compact.ok) out.compactOk += 1;
    else out.failures.push(`${def.name} (compact): ${compact.message.slice(0, 200)}`);
    if (required.ok) out.requiredOk += 1;
    else out.failures.push(`${def.name} (required-only): ${required.message.slice(0, 200)}`);
  }
  return out;
}

const pct = (part: number, whole: number): string => (whole === 0 ? "n/a" : `${((100 * part) / whole).toFixed(1)} %`);

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

  console.log(
    `\nTokens per answer (what it returns, JSON text), service default budget 2,000; the service's answers, then the same ranked lists answered in each configuration, one rule added at a time`,
  );
  const mean = (v: readonly number[]) => v.reduce((sum, x) => sum + x, 0) / Math.max(1, v.length);
  const sorted = (v: readonly number[]) => [...v].sort((x, y) => x - y);
  console.log(
    table(
      [
        "tools",
        "k",
        "step",
        "answers",
        "service mean",
        "p95",
        "max",
        "before mean",
        "p95",
        "max",
        "p95 before ÷ service",
        "p95 full tools ÷ service",
        "answers with overBudget",
      ],
      cells.map((c) => {
        const a = sorted(c.compact);
        const f = sorted(c.configurations.get(BEFORE) ?? []);
        const t = sorted(c.configurations.get(FULL_TOOLS) ?? []);
        return [
          int(c.size),
          String(c.k),
          c.step,
          String(a.length),
          int(mean(a)),
          int(percentile(a, 95)),
          int(a.at(-1) ?? 0),
          int(mean(f)),
          int(percentile(f, 95)),
          int(f.at(-1) ?? 0),
          `${(percentile(f, 95) / percentile(a, 95)).toFixed(2)}×`,
          `${(percentile(t, 95) / percentile(a, 95)).toFixed(2)}×`,
          `${c.overBudgetAnswers} (${c.overBudgetTools} tools)`,
        ];
      }),
    ),
  );
  console.log(`\nEach configuration: mean / p95 tokens per answer (k = 5 | k = 8), and the p95 ratio to "before compact views"`);
  for (const size of sizes) {
    for (const step of ["first", "later"] as const) {
      const row = (k: number) => cells.find((c) => c.size === size && c.k === k && c.step === step);
      console.log(`[${int(size)} tools, ${step} steps]`);
      console.log(
        table(
          ["configuration", "k=5 mean", "p95", "÷ before", "k=8 mean", "p95", "÷ before"],
          CONFIGURATIONS.map((configuration) => [
            configuration.name,
            ...[5, 8].flatMap((k) => {
              const cell = row(k);
              const values = sorted(cell?.configurations.get(configuration.name) ?? []);
              const before = sorted(cell?.configurations.get(BEFORE) ?? []);
              return [int(mean(values)), int(percentile(values, 95)), `${(percentile(before, 95) / Math.max(1, percentile(values, 95))).toFixed(2)}×`];
            }),
          ]),
        ),
      );
    }
  }

  console.log(
    `\nQuality in the same run: what the answer shows vs everything it ranked (first steps: mean recall@k of gold tools; later steps: next tool first / among k)`,
  );
  console.log(
    table(
      ["tools", "k", "step", "scored", "shown", "ranked", "top-1 shown", "top-1 ranked"],
      cells.map((c) => [
        int(c.size),
        String(c.k),
        c.step,
        String(c.scored),
        pct(c.shownK, c.scored),
        pct(c.rankedK, c.scored),
        c.step === "later" ? pct(c.shown1, c.scored) : "",
        c.step === "later" ? pct(c.ranked1, c.scored) : "",
      ]),
    ),
  );

  console.log(`\nRoute latency in this run (sequential, one auth-only GET /v1/tenant after every route request)`);
  console.log(
    table(
      ["tools", "k", "step", "route p50", "route p99", "auth-only p50", "route ÷ auth p50"],
      cells.map((c) => {
        const r = summary(c.routeMs);
        const a = summary(c.authMs);
        return [int(c.size), String(c.k), c.step, ms(r.p50), ms(r.p99), ms(a.p50), (r.p50 / a.p50).toFixed(2)];
      }),
    ),
  );

  console.log(
    `\nThe answer assembly alone, in this process, on each cell's own ranked lists (after 100 warm-up answers): the service default now (stored views, fitToBudget, exact counts, tools only) vs this branch's start (prompt + tools) vs before compact views (full entries + described prompt block)`,
  );
  console.log(
    table(
      ["tools", "k", "step", "now p50", "p99", "branch start p50", "p99", "before p50", "p99"],
      cells.map((c) => {
        const t = assemblyTimes(c);
        const n = summary(t.now);
        const s = summary(t.start);
        const o = summary(t.before);
        return [int(c.size), String(c.k), c.step, ms(n.p50), ms(n.p99), ms(s.p50), ms(s.p99), ms(o.p50), ms(o.p99)];
      }),
    ),
  );

  const corpusDefs = importToolList(corpusItems()).tools;
  const calls = callsFromViews(corpusDefs);
  console.log(
    `\nCalls built from views (${int(calls.tools)} corpus tools; ${int(calls.validFull)} where a call built from the full definition validates): compact view ${int(calls.compactOk)} / ${int(calls.validFull)} validate against the full definition, required-only view ${int(calls.requiredOk)} / ${int(calls.validFull)}; tools with named-only optional parameters ${int(calls.namedOnlyTools)}, whose full-definition call (every parameter) passes the shown schema: ${int(calls.namedOnlyOk)} / ${int(calls.namedOnlyTools)}`,
  );
  if (calls.compactOk !== calls.validFull || calls.requiredOk !== calls.validFull || calls.namedOnlyOk !== calls.namedOnlyTools) process.exitCode = 1;
  for (const failure of calls.failures.slice(0, 10)) console.log(`  ${failure}`);
  console.log(`\n${machineLine()}\ndone in ${seconds(performance.now() - started)}`);
}

await main();
