/** One tenant size measured through the HTTP API: the tenant set up, then each cell's route answers asked, checked and scored. */
import { END, START } from "../../../functions/toolnet/graph";
import { importToolList } from "../../../functions/tools/list-import";
import type { TestService } from "../../../test/helpers/service";
import { setUpTenant } from "../bench-service";
import { int, randomInt, seconds, seededRandom, summary } from "../stats";
import { corpusItems, recordedTrajectories, syntheticWalks, toolItems, type ListItem } from "../tool-corpus";
import type { Answer, Cell, Query, Step } from "./cell";
import { BEFORE, configurationTokens, SERVICE_DEFAULT } from "./configurations";
import { tokens } from "./tokens";
import { transitions } from "./workload";

export const DEGREE = 10;
export const UNLIMITED_RATE = { perSecond: 10_000, burst: 100_000 };

/** Everything an answer ranked (shown, Finish and over budget), best first. */
export function rankedOf(answer: Answer): { tool: string; weight: number }[] {
  return [
    ...answer.candidates.map((c) => ({ tool: c.name === "Finish" ? END : c.name, weight: c.weight })),
    ...answer.overBudget.map((o) => ({ tool: o.name, weight: o.weight })),
  ].sort((a, b) => b.weight - a.weight);
}

export async function timedJson<T>(service: TestService, method: string, path: string, key: string, body?: unknown): Promise<{ ms: number; body: T }> {
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

/** The tenant's tools and what the bench asks them, shared by the size's cells. */
interface Workload {
  names: string[];
  nameSet: Set<string>;
  allQueries: readonly Query[];
  /** Queries with a gold tool the tenant has (every other first-step answer asks one). */
  scoredQueries: Query[];
  steps: { previous: string; next: string; task: string }[];
  random: () => number;
}

/** One route request: its body, the gold tools it is scored against, and the previous tool. */
interface Asked {
  body: Record<string, unknown>;
  gold: string[];
  previous: string;
}

export async function measureSize(service: TestService, size: number, answers: number, allQueries: readonly Query[]): Promise<Cell[]> {
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
  const workload: Workload = { names, nameSet, allQueries, scoredQueries, steps, random: seededRandom(size) };
  const cells: Cell[] = [];
  for (const k of [5, 8]) {
    for (const step of ["first", "later"] as const) {
      const cell = emptyCell(size, k, step, defs);
      for (let i = 0; i < answers; i += 1) {
        const asked = nextRequest(workload, step, k, i);
        const routed = await timedJson<Answer>(service, "POST", "/v1/route", setup.key, asked.body);
        cell.authMs.push((await timedJson(service, "GET", "/v1/tenant", setup.key)).ms);
        cell.routeMs.push(routed.ms);
        recordAnswer(cell, routed.body, asked);
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

function emptyCell(size: number, k: number, step: Step, defs: Cell["defs"]): Cell {
  return {
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
}

/** The i-th request of a cell: a random query (first steps; every other one with gold the tenant has) or a random recorded transition (later steps). */
function nextRequest(workload: Workload, step: Step, k: number, i: number): Asked {
  const { names, nameSet, allQueries, scoredQueries, steps, random } = workload;
  if (step === "first") {
    const pool = scoredQueries.length > 0 && i % 2 === 0 ? scoredQueries : allQueries;
    const query = pool[randomInt(random, pool.length)] as Query;
    return { body: { task: query.text, k }, gold: query.gold.filter((g) => nameSet.has(g)), previous: START };
  }
  const transition = steps[randomInt(random, steps.length)] ?? { previous: names[0] ?? "", next: "", task: "" };
  return { body: { task: transition.task, previousTool: transition.previous, k }, gold: [transition.next], previous: transition.previous };
}

/** The service's answer checked against this count and its budget, kept for the configurations, and scored against the gold tools. */
function recordAnswer(cell: Cell, answer: Answer, { gold, previous }: Asked): void {
  const promptTokens = answer.prompt === undefined ? 0 : tokens(answer.prompt);
  const toolsTokens = answer.tools === undefined ? 0 : tokens(JSON.stringify(answer.tools));
  if (promptTokens !== answer.tokens.prompt || toolsTokens !== answer.tokens.tools)
    throw new Error(`reported tokens ${JSON.stringify(answer.tokens)} ≠ counted ${promptTokens} + ${toolsTokens}`);
  if (promptTokens + toolsTokens > answer.tokens.budget) throw new Error(`answer over its budget: ${promptTokens + toolsTokens} > ${answer.tokens.budget}`);
  cell.compact.push(promptTokens + toolsTokens);
  cell.rankedLists.push({ previous, ranked: rankedOf(answer) });
  if (answer.overBudget.length > 0) cell.overBudgetAnswers += 1;
  cell.overBudgetTools += answer.overBudget.length;
  if (gold.length === 0) return;
  const shown = (answer.tools ?? []).map((t) => t.function.name);
  const ranked = [...answer.candidates.filter((c) => c.name !== "Finish"), ...answer.overBudget].sort((a, b) => b.weight - a.weight).map((c) => c.name);
  cell.scored += 1;
  if (cell.step === "first") {
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
