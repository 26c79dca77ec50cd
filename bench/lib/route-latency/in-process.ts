// route-latency (bench/route-latency.ts): the route work redone in this Node process with the same pure functions: no HTTP, no RPC.
import { addTools, addTrajectories, createGraph, END, formatPromptBlock, START, successors, type Trajectory } from "../../../functions/toolnet/graph";
import { openAiTool } from "../../../functions/toolnet/openai-tools";
import { apiSiblings } from "../../../functions/toolnet/api-siblings";
import { toolDocument, ToolIndex } from "../../../functions/toolnet/retrieval";
import { coverTaskWords, searchCoveringWords } from "../../../functions/toolnet/retrieval/term-coverage";
import { buildEngine, DEFAULT_TUNING, engineSearch, toSearchOptions } from "../../../functions/toolnet/retrieval/minisearch-engine";
import { importToolList } from "../../../functions/tools/list-import";
import type { ListItem } from "../tool-corpus";
import { ownCpuMs, randomInt, seededRandom } from "../stats";

/** Search alone at the object's relevance depth: impact index vs MiniSearch, same queries, ms. */
export interface SearchTimes {
  impact: number[];
  covering: number[];
  minisearch: number[];
  /** searchCoveringWords without API evidence, and with it (the APIs of apiSiblings). */
  routing: number[];
  withApis: number[];
}

/**
 * The work of one route call inside the object (tenant-routing.ts `route`, after #load), redone
 * here with the same pure functions: successors or BM25 search, the prompt block, the OpenAI
 * tools entries. No HTTP, no RPC, no serialisation. Returns per-call times in ms.
 */
export function inProcessRoute(
  items: readonly ListItem[],
  trajectories: readonly Trajectory[],
  queries: readonly string[],
  calls: number,
): { graph: number[]; retrieval: number[]; search: SearchTimes } {
  const { tools: defs } = importToolList(items);
  const byName = new Map(defs.map((d) => [d.name, d]));
  const graph = createGraph();
  addTools(
    graph,
    defs.map((d) => d.name),
  );
  addTrajectories(graph, trajectories, { unknownTools: "skip" });
  const docs = defs.map((def) => toolDocument(def));
  const index = ToolIndex.build(docs);
  const describe = (tool: string): string => (byName.get(tool)?.summary ?? byName.get(tool)?.description ?? "").replace(/\s+/g, " ").trim().slice(0, 160);
  const random = seededRandom(calls);
  const one = (previous: string | null, task: string): number => {
    const t = performance.now();
    let ranked: { tool: string; weight: number }[];
    if (previous === null) {
      const hits = index.search(task, 8);
      const top = hits[0]?.score ?? 1;
      ranked = hits.map((hit) => ({ tool: hit.name, weight: Math.round((hit.score / top) * 1000) }));
    } else {
      ranked = successors(graph, previous, 8, { includeEnd: true });
    }
    const prompt = formatPromptBlock({ previous: previous ?? START, candidates: ranked.map((r) => ({ ...r, exact: r.weight / 1000 })), describe });
    const tools = ranked.flatMap((r) => {
      const def = r.tool === END ? undefined : byName.get(r.tool);
      return def === undefined ? [] : [openAiTool(def)];
    });
    if (prompt.length === 0 || tools.length > 8) throw new Error("unexpected route result");
    return performance.now() - t;
  };
  const out = {
    graph: [] as number[],
    retrieval: [] as number[],
    search: { impact: [] as number[], covering: [] as number[], minisearch: [] as number[], routing: [] as number[], withApis: [] as number[] },
  };
  const siblings = apiSiblings(defs);
  const siblingsOf = (tool: string) => siblings.get(tool) ?? [];
  for (let i = 0; i < 100 + calls; i += 1) {
    const task = queries[randomInt(random, queries.length)] ?? "";
    const g = one(defs[randomInt(random, defs.length)]?.name ?? null, task);
    const r = one(null, task);
    if (i >= 100) {
      out.graph.push(g);
      out.retrieval.push(r);
    }
  }
  // The search alone at the object's depth, against MiniSearch (same scores) on the same queries.
  const engine = buildEngine(docs);
  const options = toSearchOptions(DEFAULT_TUNING);
  for (let i = 0; i < 50 + calls; i += 1) {
    const task = queries[randomInt(random, queries.length)] ?? "";
    // CPU time: on a shared machine, wall-clock p99 is mostly waiting for a core.
    let t = ownCpuMs();
    index.search(task, SEARCH_DEPTH);
    const impact = ownCpuMs() - t;
    // What routing adds to the search: its best re-ranked to cover the task's words (term-coverage.ts).
    const matching = index.searchMatching(task, SEARCH_DEPTH);
    t = ownCpuMs();
    coverTaskWords(matching.ranked, matching.impacts);
    const covering = ownCpuMs() - t;
    t = ownCpuMs();
    engineSearch(engine, task, SEARCH_DEPTH, options);
    const minisearch = ownCpuMs() - t;
    // Routing's whole lexical search (search and coverage), and with API evidence (api-evidence.ts: a deeper search, then the APIs' backing).
    t = ownCpuMs();
    searchCoveringWords(index, task, SEARCH_DEPTH);
    const routing = ownCpuMs() - t;
    t = ownCpuMs();
    searchCoveringWords(index, task, SEARCH_DEPTH, { siblingsOf });
    const withApis = ownCpuMs() - t;
    if (i >= 50) {
      out.search.impact.push(impact);
      out.search.covering.push(covering);
      out.search.minisearch.push(minisearch);
      out.search.routing.push(routing);
      out.search.withApis.push(withApis);
    }
  }
  return out;
}

/** The object's relevance depth (tenant-routing.ts RELEVANCE_DEPTH). */
export const SEARCH_DEPTH = 30;
