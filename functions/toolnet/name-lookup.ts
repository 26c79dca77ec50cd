import { isIdLike } from "../probing/vocabulary";
import type { DataFlowSource } from "./data-flow";
import type { FusedCandidate } from "./signal-fusion";
import { namesEntity, writesIdentifier } from "./task-shape";

/**
 * Entity resolution in candidate rankings. A task that names something ("movies directed by
 * Martin Scorsese") while its best tools need an identifier (`person_id`) that the task does not
 * write cannot start with those tools: it starts with the tool that turns the name into the
 * identifier (a search by name), whose own words the task rarely uses. So, only when the task
 * names an entity and writes no identifier, each ranked tool's by-name producers (data flow: a
 * tool that takes only text and returns that identifier) are placed right after it.
 * Unconditionally forcing producers in costs tasks that need none (measured in
 * bench/routing-generalisation.ts); the three conditions are what make the lookup needed.
 *
 * Every ranked tool brings its lookups, not a fixed number of leaders: a caller offers a prefix of
 * the ranking (an answer's k tools, the tools a run set takes within its size and budget), and an
 * offered tool whose identifier only a lookup supplies is unusable without it. Placing a tool's
 * lookups changes only what ranks after that tool, so every prefix holds the same tools as if only
 * its own tools had brought their lookups.
 */

// Keyed by the producers list itself: DataFlowIndex keeps one list per tool until its tools change.
const lookupCache = new WeakMap<readonly DataFlowSource[], readonly DataFlowSource[]>();

/** For one tool, the best by-name producer of each required identifier input (producers come best first). */
function lookupsOf(tool: string, producersOf: (tool: string) => readonly DataFlowSource[]): readonly DataFlowSource[] {
  const producers = producersOf(tool);
  const cached = lookupCache.get(producers);
  if (cached !== undefined) return cached;
  const byParameter = new Map<string, DataFlowSource>();
  for (const source of producers) {
    if (source.byName && isIdLike(source.parameter) && !byParameter.has(source.parameter)) byParameter.set(source.parameter, source);
  }
  const lookups = [...byParameter.values()];
  lookupCache.set(producers, lookups);
  return lookups;
}

/**
 * `ranked` with each tool's name lookups (only the first `leaders` tools', when given: an
 * ablation) placed right after it, moved up or added at that tool's score and explained by
 * `why.feeds`. Unchanged when the task names nothing or writes an identifier itself.
 */
export function withNameLookups(
  ranked: readonly FusedCandidate[],
  task: string,
  producersOf: (tool: string) => readonly DataFlowSource[],
  leaders = Number.POSITIVE_INFINITY,
): FusedCandidate[] {
  const rankOf = new Map(ranked.map((c, i) => [c.tool, i]));
  const bringsLookups = (tool: string): boolean => (rankOf.get(tool) ?? ranked.length) < leaders;
  // The tools' inputs are read first: most rankings have no lookup to place, and then the task need not be read.
  if (!ranked.some((c, i) => i < leaders && lookupsOf(c.tool, producersOf).length > 0) || !namesEntity(task) || writesIdentifier(task)) return [...ranked];
  // One pass, best first: each tool is placed, then its lookups not placed yet.
  const out: FusedCandidate[] = [];
  const placed = new Set<string>();
  let next = 0; // the first tool of `ranked` not placed yet
  const place = (candidate: FusedCandidate): void => {
    out.push(candidate);
    placed.add(candidate.tool);
    if (!bringsLookups(candidate.tool)) return;
    for (const lookup of lookupsOf(candidate.tool, producersOf)) {
      if (placed.has(lookup.from)) continue;
      while (next < ranked.length && placed.has(ranked[next]?.tool ?? "")) next += 1;
      const at = rankOf.get(lookup.from);
      const own = at === undefined ? undefined : ranked[at];
      // Ranked right after the tool anyway: it stays as it is.
      if (own !== undefined && at === next) {
        place(own);
        continue;
      }
      const feeds = own?.why.feeds ?? { to: candidate.tool, field: lookup.field, parameter: lookup.parameter };
      place({ tool: lookup.from, score: candidate.score, why: { ...(own?.why ?? {}), feeds } });
    }
  };
  for (const candidate of ranked) if (!placed.has(candidate.tool)) place(candidate);
  return out;
}
