import type { ToolGraph } from "./graph";

/**
 * How this tenant's conversations start: the tools its recent conversations and trajectories
 * used first, each start fading as newer ones come. Some tools are chosen by the dialogue's
 * state, not by the request's words: a gateway that finds the right tool (`ToolSearcher`) or
 * signs the user in (`GetUserToken`) starts a large share of a tenant's conversations while
 * sharing no word with their requests, so neither the words, nor the learned field, nor similar
 * tasks' votes find it. This is the first step's backoff, as later-step-prior.ts is a later
 * step's: a unigram over first tools.
 */

/** A start's weight halves every this many later starts: what the tenant's users do lately counts most. */
export const START_HALF_LIFE = 500;

/** A tool is a usual start once it started at least this share of the tenant's (decayed) conversations. */
export const MIN_START_SHARE = 0.1;

/** And at least this many of them: one or two conversations say nothing about how the next will start. */
export const MIN_STARTS = 3;

export interface StartingTool {
  readonly tool: string;
  /** Conversations and trajectories that started with it (not decayed). */
  readonly observed: number;
  /** Its decayed share of the tenant's starts (0–1). */
  readonly share: number;
}

/** Every tool's decayed and plain start counts, in the order the starts were learned. */
export interface StartCounts {
  readonly weight: ReadonlyMap<string, number>;
  readonly observed: ReadonlyMap<string, number>;
  /** Sum of `weight`. */
  readonly total: number;
  /** A trajectory's decayed weight (by id; 0 when it started with no known tool). */
  readonly weightOf: (id: string) => number;
}

/** One start left out (a replayed task's own): its tool, and its decayed weight. */
export interface LeftOut {
  readonly tool: string;
  readonly weight: number;
}

/**
 * Only the newest starts are read: older ones weigh less than 1/250 of the newest (8 half-lives)
 * and would cost a tenant with 80,000 trajectories a pass of map updates after every change.
 */
export const START_WINDOW = 8 * START_HALF_LIFE;

/**
 * Start counts of `starts` (trajectory id and first tool, oldest first); `isTool` drops starts
 * with a tool the catalog no longer has. The newest start weighs 1, one START_HALF_LIFE older ½;
 * only the newest START_WINDOW known starts count.
 */
export function startCounts(starts: readonly (readonly [string, string | undefined])[], isTool: (tool: string) => boolean): StartCounts {
  const decay = 0.5 ** (1 / START_HALF_LIFE);
  const weight = new Map<string, number>();
  const observed = new Map<string, number>();
  /** Index in `starts` of each counted start, newest first: its weight is decay^position. */
  const counted: number[] = [];
  let total = 0;
  let w = 1;
  for (let i = starts.length - 1; i >= 0 && counted.length < START_WINDOW; i -= 1) {
    const tool = starts[i]?.[1];
    if (tool === undefined || !isTool(tool)) continue;
    weight.set(tool, (weight.get(tool) ?? 0) + w);
    observed.set(tool, (observed.get(tool) ?? 0) + 1);
    counted.push(i);
    total += w;
    w *= decay;
  }
  let byId: Map<string, number> | undefined;
  const weightOf = (id: string): number => {
    // Only a replay asks (off the request path): the map is made then.
    byId ??= new Map(counted.map((index, position) => [starts[index]?.[0] ?? "", decay ** position]));
    return byId.get(id) ?? 0;
  };
  return { weight, observed, total, weightOf };
}

/**
 * The usual starts, most usual first: tools with at least MIN_STARTS starts and MIN_START_SHARE
 * of the decayed total, `leftOut` (a replayed task's own start) not counted.
 */
export function usualStarts(counts: StartCounts, leftOut?: LeftOut): StartingTool[] {
  const total = counts.total - (leftOut?.weight ?? 0);
  if (total <= 0) return [];
  const usual: StartingTool[] = [];
  for (const [tool, decayed] of counts.weight) {
    const own = leftOut?.tool === tool;
    const observed = (counts.observed.get(tool) ?? 0) - (own ? 1 : 0);
    const share = (decayed - (own ? (leftOut?.weight ?? 0) : 0)) / total;
    if (observed >= MIN_STARTS && share >= MIN_START_SHARE) usual.push({ tool, observed, share });
  }
  return usual.sort((a, b) => b.share - a.share || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
}

/**
 * The newest START_WINDOW stored trajectories' ids and first tools, oldest first. The stored
 * trajectories are a map in the order learned, read front to back, so the newest are kept in a
 * ring as they pass (a tenant with 80,000 trajectories allocates nothing per older one).
 */
function newestStarts(graph: ToolGraph): [string, string | undefined][] {
  const ids: string[] = new Array(START_WINDOW);
  const firsts: (string | undefined)[] = new Array(START_WINDOW);
  let seen = 0;
  graph.trajectories.forEach((tools, id) => {
    ids[seen % START_WINDOW] = id;
    firsts[seen % START_WINDOW] = tools[0];
    seen += 1;
  });
  const kept = Math.min(seen, START_WINDOW);
  return Array.from({ length: kept }, (_, i) => {
    const at = (seen - kept + i) % START_WINDOW;
    return [ids[at] ?? "", firsts[at]];
  });
}

const cache = new WeakMap<ToolGraph, { version: number; counts: StartCounts; usual: readonly StartingTool[] }>();

function cached(graph: ToolGraph): { counts: StartCounts; usual: readonly StartingTool[] } {
  const hit = cache.get(graph);
  if (hit !== undefined && hit.version === graph.version) return hit;
  const counts = startCounts(newestStarts(graph), (tool) => graph.tools.has(tool));
  const entry = { version: graph.version, counts, usual: usualStarts(counts) };
  cache.set(graph, entry);
  return entry;
}

/** The graph's usual starts (its stored trajectories in the order learned); cached per graph version. */
export function graphStarts(graph: ToolGraph): readonly StartingTool[] {
  return cached(graph).usual;
}

/** The graph's usual starts as if trajectory `id` had never been learned (the calibration's replay of that task). */
export function graphStartsWithout(graph: ToolGraph, id: string): StartingTool[] {
  const { counts } = cached(graph);
  const tool = graph.trajectories.get(id)?.[0];
  const weight = counts.weightOf(id);
  return tool === undefined || weight === 0 ? usualStarts(counts) : usualStarts(counts, { tool, weight });
}

/**
 * How many of the tools this tenant's users chose where the request's words found nothing the
 * first step's second prior offers: five, what a chatbot is offered.
 */
export const UNMATCHED_CHOICES = 5;

/** What the unmatched choices read of the learned field (learned-field.ts `search`). */
export type LearnedSearch = (text: string, catalogSize: number, limit: number, excluding?: string) => readonly { name: string }[];

/**
 * The tools this tenant's users chose where the request's own words did not rank them among
 * their best few, most chosen first: those whose learned field holds the pseudo-word
 * (learned-field.ts UNMATCHED_TERM), ranked by it. A search with no words asks for the pseudo-word
 * alone. Open questions to an answer engine share no word with each other, so the pseudo-word
 * lifts such a tool only a little within the words' ranking; as a reciprocal-rank list of its own
 * it reaches the first 5 from just below, where the words found something weak. With `excluding`,
 * as if that source (a replayed task's own) had taught nothing.
 */
export function unmatchedChoices(search: LearnedSearch, catalogSize: number, excluding?: string): string[] {
  return search("", catalogSize, UNMATCHED_CHOICES, excluding).map((ranked) => ranked.name);
}
