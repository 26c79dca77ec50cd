/** The answer assembly alone, timed in this process. */
import type { Ranked, Cell } from "./cell";
import { budgeted, fullAnswer, ViewCache } from "./views";

/**
 * The answer assembly alone, in this process, on the run's own ranked lists: today's default
 * (stored views looked up, fitToBudget with exact counts, tools only) against this branch's start
 * (views without named-only parameters, prompt block and tools) and before compact views (full
 * entries and the prompt block with descriptions). Each serialises what it returns.
 */
export function assemblyTimes(cell: Cell): { now: number[]; start: number[]; before: number[] } {
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
