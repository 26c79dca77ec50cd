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
 * `ranked` with the name lookups of its tools (of its first `leaders` only, when given: an
 * ablation) moved or added right after each, at that tool's score, explained by `why.feeds`;
 * unchanged when the task names nothing or writes an identifier itself.
 */
export function withNameLookups(
  ranked: FusedCandidate[],
  task: string,
  producersOf: (tool: string) => readonly DataFlowSource[],
  leaders = ranked.length,
): FusedCandidate[] {
  const wanted = ranked.slice(0, Math.max(0, leaders)).map((leader) => ({ leader, lookups: lookupsOf(leader.tool, producersOf) }));
  // The tools' inputs are read first: most rankings have no lookup to place, and then the task need not be read.
  if (!wanted.some((w) => w.lookups.length > 0) || !namesEntity(task) || writesIdentifier(task)) return ranked;
  const out = [...ranked];
  for (const { leader, lookups } of wanted) {
    let at = out.findIndex((c) => c.tool === leader.tool);
    for (const lookup of lookups) {
      const from = out.findIndex((c) => c.tool === lookup.from);
      // Already ranked before the tool, or right after it: nothing to move.
      if (from >= 0 && from <= at + 1) {
        at = Math.max(at, from);
        continue;
      }
      const moved = from >= 0 ? out.splice(from, 1)[0] : undefined;
      const feeds = moved?.why.feeds ?? { to: leader.tool, field: lookup.field, parameter: lookup.parameter };
      out.splice(at + 1, 0, { tool: lookup.from, score: leader.score, why: { ...(moved?.why ?? {}), feeds } });
      at += 1;
    }
  }
  return out;
}
