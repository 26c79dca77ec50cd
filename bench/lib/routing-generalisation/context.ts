/** What one dataset's measuring reads (the tenant's index, graph, task memory, …), and the searches routing makes on it. */
import { withApiEvidence, API_EVIDENCE_DEPTH } from "../../../functions/toolnet/retrieval/api-evidence";
import { type CoveringOptions, coverTaskWords } from "../../../functions/toolnet/retrieval/term-coverage";
import type { DataFlowIndex } from "../../../functions/toolnet/data-flow";
import type { ToolGraph } from "../../../functions/toolnet/graph";
import type { Ranked, ToolIndex } from "../../../functions/toolnet/retrieval";
import type { TaskMemory } from "../../../functions/toolnet/task-memory";
import type { ToolDefinition } from "../../../functions/tools/definition";
import type { RetrievalVariant } from "../retrieval-variants";
import { API_WEIGHT, WORD_COVERAGE } from "./options";

export interface Context {
  index: ToolIndex;
  flow: DataFlowIndex;
  defs: Map<string, ToolDefinition>;
  graph: ToolGraph;
  /** The tenant's graph with no history at all (cold start). */
  coldGraph: ToolGraph;
  memory: TaskMemory;
  siblings: Map<string, readonly string[]>;
  cost: (tool: string) => number;
  /** Retrieval variants asked for on the command line (`--prf`, `--api-evidence`; bench/lib/retrieval-variants.ts), by label. */
  variants: RetrievalVariant[];
  /** With `--embeddings`: every tool's vector (of the text the product embeds) and every measured task's. */
  dense?: { tools: Map<string, Float32Array>; tasks: Map<string, Float32Array> };
}

/** The search options routing uses (coverage and API evidence), with this run's weights. */
export const routingSearch = (ctx: Context): CoveringOptions => ({
  coverage: WORD_COVERAGE,
  siblingsOf: (tool) => ctx.siblings.get(tool) ?? [],
  apiWeight: API_WEIGHT,
});

/** BM25 weighed by its APIs' backing, as routing searches (api-evidence.ts; `--api-weight`). */
export function searchWithApis(ctx: Context, text: string, depth: number): Ranked[] {
  const siblingsOf = (tool: string) => ctx.siblings.get(tool) ?? [];
  return withApiEvidence(ctx.index.search(text, Math.max(depth, API_EVIDENCE_DEPTH)), siblingsOf, API_WEIGHT).slice(0, depth);
}

/** `ranked` re-ranked for coverage of the task's words, as routing re-ranks. */
export const covered = (ctx: Context, text: string, ranked: Ranked[]): Ranked[] =>
  coverTaskWords(
    ranked,
    ctx.index.termImpacts(
      text,
      ranked.map((r) => r.name),
    ),
    WORD_COVERAGE,
  );
