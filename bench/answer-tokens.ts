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
 * checked against this count): its `prompt` block and its `tools` array as JSON text. The same
 * answer as the service gave it before compact views ("full definitions") is rebuilt from the
 * same ranked list (shown tools + `overBudget`, by weight): `openAiTool` of each local definition
 * (the project's `importToolList` of the very list sent) and `formatPromptBlock` with the old
 * one-line descriptions.
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
 * views must validate too.
 */
import { getEncoding } from "js-tiktoken";
import { sample } from "openapi-sampler";
import { DEFAULT_MAX_TOKENS, fitToBudget, toolViews, type ToolViews } from "../functions/toolnet/answer-budget";
import { compactView, requiredOnlyView } from "../functions/toolnet/compact-view";
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
  prompt: string;
  tools: OpenAiTool[];
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
  full: number[];
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
function fullAnswer(ranked: readonly { tool: string; weight: number }[], previous: string, defs: ReadonlyMap<string, ToolDefinition>): { prompt: string; tools: OpenAiTool[] } {
  const prompt = formatPromptBlock({ previous, candidates: ranked.map((r) => ({ ...r, exact: r.weight / 1000 })), describe: (tool) => oldShortDescription(defs.get(tool)) });
  const tools = ranked.flatMap((r) => {
    const def = defs.get(r.tool);
    return def === undefined ? [] : [openAiTool(def)];
  });
  return { prompt, tools };
}

/** Tokens of the answer the service gave before compact views, for the same ranked list. */
function fullAnswerTokens(answer: Answer, previous: string, defs: ReadonlyMap<string, ToolDefinition>): number {
  const { prompt, tools } = fullAnswer(rankedOf(answer), previous, defs);
  return tokens(prompt) + tokens(JSON.stringify(tools));
}

/**
 * The answer assembly alone, in this process, on the run's own ranked lists: today's (stored
 * views looked up, fitToBudget with exact counts) against before (full tools entries and the
 * prompt block with descriptions). Both serialise their tools array, as the response does.
 */
function assemblyTimes(cell: Cell): { budgeted: number[]; before: number[] } {
  const views = new Map<string, ToolViews>();
  const viewsOf = (tool: string): ToolViews | undefined => {
    const def = cell.defs.get(tool);
    if (def === undefined) return undefined;
    let v = views.get(tool);
    if (v === undefined) views.set(tool, (v = toolViews(def))); // computed once, as stored ones are
    return v;
  };
  for (const list of cell.rankedLists) for (const r of list.ranked) viewsOf(r.tool);
  const budgeted = (list: Cell["rankedLists"][number]): number => {
    const t = performance.now();
    const ranked = list.ranked.map((r) => {
      const v = viewsOf(r.tool);
      return { tool: r.tool, weight: r.weight, description: oldShortDescription(cell.defs.get(r.tool)), ...(v === undefined ? {} : { views: v }) };
    });
    const result = fitToBudget({ previous: list.previous, ranked, maxTokens: DEFAULT_MAX_TOKENS });
    if (!result.ok) throw new Error(result.message);
    JSON.stringify(result.answer);
    return performance.now() - t;
  };
  const before = (list: Cell["rankedLists"][number]): number => {
    const t = performance.now();
    JSON.stringify(fullAnswer(list.ranked, list.previous, cell.defs));
    return performance.now() - t;
  };
  for (const list of cell.rankedLists.slice(0, 100)) {
    budgeted(list);
    before(list);
  }
  const out = { budgeted: [] as number[], before: [] as number[] };
  for (const list of cell.rankedLists) {
    out.budgeted.push(budgeted(list));
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
  const texts = new Map((readData("stabletoolbench/retrieval_queries.json") as { group: string; query_id: number; query: string }[]).map((q) => [`stabletoolbench:${q.group}:${q.query_id}`, q.query]));
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
  const response = await service.fetch(path, { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
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
  console.log(`[${int(size)} tools] import ${seconds(setup.toolImportMs)} (compact views and their token counts computed there), trajectories ${seconds(setup.trajectoryImportMs)}`);
  const steps = transitions(nameSet);
  const scoredQueries = allQueries.filter((q) => q.gold.some((g) => nameSet.has(g)));
  const random = seededRandom(size);
  const cells: Cell[] = [];
  for (const k of [5, 8]) {
    for (const step of ["first", "later"] as const) {
      const cell: Cell = { size, k, step, compact: [], full: [], overBudgetAnswers: 0, overBudgetTools: 0, shown1: 0, ranked1: 0, shownK: 0, rankedK: 0, scored: 0, routeMs: [], authMs: [], rankedLists: [], defs };
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
        const promptTokens = tokens(answer.prompt);
        const toolsTokens = tokens(JSON.stringify(answer.tools));
        if (promptTokens !== answer.tokens.prompt || toolsTokens !== answer.tokens.tools) throw new Error(`reported tokens ${JSON.stringify(answer.tokens)} ≠ counted ${promptTokens} + ${toolsTokens}`);
        if (promptTokens + toolsTokens > answer.tokens.budget) throw new Error(`answer over its budget: ${promptTokens + toolsTokens} > ${answer.tokens.budget}`);
        cell.compact.push(promptTokens + toolsTokens);
        cell.full.push(fullAnswerTokens(answer, previous, defs));
        cell.rankedLists.push({ previous, ranked: rankedOf(answer) });
        if (answer.overBudget.length > 0) cell.overBudgetAnswers += 1;
        cell.overBudgetTools += answer.overBudget.length;
        if (gold.length === 0) continue;
        const shown = answer.tools.map((t) => t.function.name);
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
      cells.push(cell);
      const c = summary(cell.compact);
      console.log(`[${int(size)} tools] k=${k} ${step}: ${cell.compact.length} answers, mean ${int(c.mean)} tokens (full ${int(summary(cell.full).mean)})`);
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

function callsFromViews(defs: readonly ToolDefinition[]): { tools: number; validFull: number; compactOk: number; requiredOk: number; failures: string[] } {
  const out = { tools: defs.length, validFull: 0, compactOk: 0, requiredOk: 0, failures: [] as string[] };
  for (const def of defs) {
    if (!validateArguments(def, valueFor(openAiTool(def).function.parameters ?? NO_PARAMETERS) as Record<string, unknown>).ok) continue;
    out.validFull += 1;
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
  if (sizes.some((s) => !Number.isInteger(s) || s < 10 || s > 50_000) || !Number.isInteger(answers) || answers < 1 || answers > 10_000) throw new Error("--sizes: 10..50000; --answers: 1..10000");
  console.log(`Tokens per routing answer (o200k_base), compact views + budget vs full definitions — ${machineLine()}`);
  const allQueries = queries();
  const { service } = await startBenchService();
  const cells: Cell[] = [];
  try {
    for (const size of sizes) cells.push(...(await measureSize(service, size, answers, allQueries)));
  } finally {
    await service.dispose();
  }

  console.log(`\nTokens per answer (prompt block + tools array as JSON), service default budget 2,000; "full" = the same ranked tools as the service answered before compact views`);
  console.log(
    table(
      ["tools", "k", "step", "answers", "compact mean", "p95", "max", "full mean", "p95", "max", "p95 full ÷ compact", "answers with overBudget"],
      cells.map((c) => {
        const a = [...c.compact].sort((x, y) => x - y);
        const f = [...c.full].sort((x, y) => x - y);
        const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / Math.max(1, v.length);
        return [int(c.size), String(c.k), c.step, String(a.length), int(mean(a)), int(percentile(a, 95)), int(a.at(-1) ?? 0), int(mean(f)), int(percentile(f, 95)), int(f.at(-1) ?? 0), `${(percentile(f, 95) / percentile(a, 95)).toFixed(1)}×`, `${c.overBudgetAnswers} (${c.overBudgetTools} tools)`];
      }),
    ),
  );

  console.log(`\nQuality in the same run: what the answer shows vs everything it ranked (first steps: mean recall@k of gold tools; later steps: next tool first / among k)`);
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

  console.log(`\nThe answer assembly alone, in this process, on each cell's own ranked lists (after 100 warm-up answers): budgeted (stored views, fitToBudget, exact counts) vs before compact views (full entries + described prompt block)`);
  console.log(
    table(
      ["tools", "k", "step", "budgeted p50", "p99", "before p50", "p99"],
      cells.map((c) => {
        const t = assemblyTimes(c);
        const b = summary(t.budgeted);
        const o = summary(t.before);
        return [int(c.size), String(c.k), c.step, ms(b.p50), ms(b.p99), ms(o.p50), ms(o.p99)];
      }),
    ),
  );

  const corpusDefs = importToolList(corpusItems()).tools;
  const calls = callsFromViews(corpusDefs);
  console.log(`\nCalls built from views (${int(calls.tools)} corpus tools; ${int(calls.validFull)} where a call built from the full definition validates): compact view ${int(calls.compactOk)} / ${int(calls.validFull)} validate against the full definition, required-only view ${int(calls.requiredOk)} / ${int(calls.validFull)}`);
  for (const failure of calls.failures.slice(0, 10)) console.log(`  ${failure}`);
  console.log(`\n${machineLine()}\ndone in ${seconds(performance.now() - started)}`);
}

await main();
