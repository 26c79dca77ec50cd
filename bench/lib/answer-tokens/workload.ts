/** What the bench asks: StableToolBench queries (first steps) and recorded transitions (later steps). */
import { stableToolBenchTrajectories } from "../../../functions/toolnet/graph";
import { corpusItems, readData } from "../tool-corpus";
import type { Query } from "./cell";

/** StableToolBench queries with their gold tools, named as the tenant names them. */
export function queries(): Query[] {
  const ids = (readData("stabletoolbench/api_corpus.json") as { id: string }[]).map((e) => e.id);
  const names = corpusItems().map((item) => item.name);
  const byId = new Map(ids.map((id, i) => [id, names[i] ?? ""]));
  return (readData("stabletoolbench/retrieval_queries.json") as { query: string; relevant_api_ids: string[] }[]).map((q) => ({
    text: q.query,
    gold: [...new Set(q.relevant_api_ids.map((id) => byId.get(id) ?? ""))].filter((n) => n !== ""),
  }));
}

/** Recorded transitions a → b with both tools in the tenant, each with its run's query text. */
export function transitions(names: ReadonlySet<string>): { previous: string; next: string; task: string }[] {
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
