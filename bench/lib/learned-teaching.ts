/**
 * Teaching every tool of a bench tenant learned words through the product's own path (issue 45):
 * trajectories with a task text (`POST /v1/graph/trajectories`), each task written from the
 * tool's own summary and description with words reworded, dropped and reordered (seeded), so a
 * tool's learned field holds words its own text has and words it has not. Nothing here comes from
 * a retrieval benchmark's queries. Also: switching `learning.fieldWeight` and reading the share
 * of it the tenant's calibration gives the field.
 */
import type { TestService } from "../../test/helpers/service";
import { routeStep, type BenchTenant } from "./bench-tenants";
import { randomInt, seededRandom, shuffle } from "./stats";
import { batches, type ListItem } from "./tool-corpus";

/** Plain rewordings of words common in API descriptions: a task says them as people ask. */
const REWORDINGS: Record<string, readonly string[]> = {
  get: ["fetch", "retrieve", "obtain"],
  list: ["show", "enumerate"],
  search: ["find", "look", "lookup"],
  create: ["make", "add", "new"],
  delete: ["remove", "erase"],
  update: ["change", "modify", "edit"],
  information: ["info", "details"],
  details: ["info", "particulars"],
  data: ["records", "figures"],
  user: ["person", "account"],
  returns: ["gives", "yields"],
  latest: ["newest", "recent"],
  price: ["cost", "rate"],
  weather: ["forecast", "climate"],
  location: ["place", "position"],
  image: ["picture", "photo"],
  video: ["clip", "movie"],
  news: ["headlines", "stories"],
  check: ["verify", "validate"],
  convert: ["transform", "translate"],
  random: ["arbitrary", "any"],
  score: ["result", "tally"],
  team: ["squad", "club"],
  match: ["game", "fixture"],
  country: ["nation", "state"],
  email: ["mail", "message"],
};

const FRAMINGS = ["please", "i need to", "can you", "help me", "i want to", "could you", ""] as const;

/** A request for `item`: its own words, some reworded, some dropped, in a seeded order, with a framing. */
export function teachingTask(item: ListItem, random: () => number): string {
  const words = `${item.summary} ${item.description}`
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !/^\d+$/.test(w));
  const kept = shuffle(words, random)
    .slice(0, 6 + randomInt(random, 7))
    .map((word) => {
      const options = REWORDINGS[word];
      return options !== undefined && random() < 0.7 ? (options[randomInt(random, options.length)] ?? word) : word;
    });
  const framing = FRAMINGS[randomInt(random, FRAMINGS.length)] ?? "";
  return `${framing} ${kept.join(" ")}`.trim() || item.name.replace(/_/g, " ");
}

/** `perTool` one-tool trajectories with a task text for each of `items` (seeded: the same tasks every run). */
export function teachingTrajectories(items: readonly ListItem[], perTool: number, seed: number): { id: string; tools: string[]; task: string }[] {
  const random = seededRandom(seed);
  return items.flatMap((item) =>
    Array.from({ length: perTool }, (_, n) => ({ id: `teach:${item.name}:${n}`, tools: [item.name], task: teachingTask(item, random) })),
  );
}

/** Teaches every tool of `tenant` through `POST /v1/graph/trajectories`; the trajectories sent and the wall time. */
export async function teachEveryTool(
  service: TestService,
  tenant: BenchTenant,
  items: readonly ListItem[],
  perTool: number,
): Promise<{ trajectories: number; ms: number }> {
  const trajectories = teachingTrajectories(items, perTool, items.length);
  const t0 = performance.now();
  // Small batches: every task is attributed (BM25 impacts of its parts) inside the one request.
  for (const batch of batches(trajectories, 1_000, 4 * 1024 * 1024)) {
    const answer = await service.json<{ added: string[] }>("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories: batch } });
    if (answer.status !== 200) throw new Error(`teaching answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  }
  return { trajectories: trajectories.length, ms: performance.now() - t0 };
}

/** Sets the tenant's `learning.fieldWeight` (0: the learned field is off). */
export async function setFieldWeight(service: TestService, tenant: BenchTenant, fieldWeight: number): Promise<void> {
  const answer = await service.json("PUT", "/v1/settings/learning", { key: tenant.key, body: { fieldWeight } });
  if (answer.status !== 200) throw new Error(`learning settings answered ${answer.status}`);
}

/** The share of `fieldWeight` the tenant's calibration gives the learned field, and whether a recalibration is due. */
export async function learnedShare(service: TestService, tenant: BenchTenant): Promise<{ learned: number; stale: boolean }> {
  const answer = await service.json<{ weights: { learned: number }; stale: boolean }>("GET", "/v1/routing/calibration", { key: tenant.key });
  if (answer.status !== 200) throw new Error(`calibration answered ${answer.status}`);
  return { learned: answer.body.weights.learned, stale: answer.body.stale };
}

/**
 * The calibration made for what the tenant has learned now: a route notes a stale one as due and
 * the tenant object's alarm remakes it in slices; waits (up to `timeoutMs`) until it is made.
 */
export async function calibrated(service: TestService, tenant: BenchTenant, task: string, timeoutMs = 600_000): Promise<{ learned: number; stale: boolean }> {
  await routeStep(service, tenant, { task, k: 5 });
  const until = performance.now() + timeoutMs;
  let share = await learnedShare(service, tenant);
  while (share.stale && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    share = await learnedShare(service, tenant);
  }
  return share;
}

/** How many sources taught `tool` its learned words, as the API shows them (a check that teaching reached the field). */
export async function learnedSourcesOf(service: TestService, tenant: BenchTenant, tool: string): Promise<number> {
  const answer = await service.json<{ sources: number }>("GET", `/v1/tools/${encodeURIComponent(tool)}/learned-words`, { key: tenant.key });
  if (answer.status !== 200) throw new Error(`learned words answered ${answer.status}`);
  return answer.body.sources;
}

/** Paired latencies, ms: pair i of `on` (field weight 1) and `off` (0) were routed back to back. */
export interface PairedStepTimes {
  first: { on: number[]; off: number[] };
  /** Later steps of the pairs where both first steps had a best tool. */
  later: { on: number[]; off: number[] };
}

/**
 * One client routing as a chat does (a first step, then a later step after its best tool) for
 * `seconds`, the field weight switched route by route: each pair routes one task at weight 1 and
 * the next at 0, in a random order (seeded), so both weights see the same machine at the same
 * moment and the order within a pair favours neither.
 */
export async function pairedFieldWeights(
  service: TestService,
  tenant: BenchTenant,
  options: { seconds: number; k: number; nextTask: () => string; random: () => number },
): Promise<PairedStepTimes> {
  const out: PairedStepTimes = { first: { on: [], off: [] }, later: { on: [], off: [] } };
  const chatTurn = async (weight: number) => {
    await setFieldWeight(service, tenant, weight);
    const first = await routeStep(service, tenant, { task: options.nextTask(), k: options.k });
    const best = first.names[0];
    const later = best === undefined ? undefined : (await routeStep(service, tenant, { task: options.nextTask(), k: options.k, previousTool: best })).ms;
    return { first: first.ms, later };
  };
  for (const until = performance.now() + options.seconds * 1000; performance.now() < until; ) {
    const onFirst = options.random() < 0.5;
    const a = await chatTurn(onFirst ? 1 : 0);
    const b = await chatTurn(onFirst ? 0 : 1);
    const [on, off] = onFirst ? [a, b] : [b, a];
    out.first.on.push(on.first);
    out.first.off.push(off.first);
    if (on.later === undefined || off.later === undefined) continue;
    out.later.on.push(on.later);
    out.later.off.push(off.later);
  }
  return out;
}

/** Of `tasks`' first steps, how many answers (names in order) differ between field weight 1 and 0: the field took part. */
export async function answersTheFieldChanges(service: TestService, tenant: BenchTenant, tasks: readonly string[], k: number): Promise<number> {
  const answers = async (weight: number) => {
    await setFieldWeight(service, tenant, weight);
    const names: string[] = [];
    for (const task of tasks) names.push((await routeStep(service, tenant, { task, k })).names.join(","));
    return names;
  };
  const on = await answers(1);
  const off = await answers(0);
  return on.filter((answer, i) => answer !== off[i]).length;
}
