/** The embeddings variants (`--embeddings`): relevance fused with the embeddings ranking at the first and later steps, and the vectors they read. */
import { fuseNextStep } from "../../../functions/toolnet/signal-fusion";
import { hybridTwoWays, LEXICAL_LEAD, rankByCosine, toolEmbeddingText, type Ranked } from "../../../functions/toolnet/retrieval";
import { callableAsAsked, needsSaidNumber, withUnfitLower } from "../../../functions/toolnet/task-fit";
import type { EmbeddingVectors } from "../embedding-vectors";
import type { Dataset } from "../routing-datasets";
import type { Context } from "./context";
import { DENSE_LEADS, DENSE_WEIGHTS, inHalf, UNFIT } from "./options";

/** The variant's name, with the weight and lead when several are measured. */
export const withWeight = (name: string, weight: number, lead: number): string =>
  `${name}${DENSE_WEIGHTS.length > 1 ? ` (weight ${weight})` : ""}${DENSE_LEADS.length > 1 ? ` (lead ${lead})` : ""}`;

/**
 * The task's relevance as routing computes it when the task was embedded: BM25 fused with the
 * embeddings ranking (a first step's with API evidence, a later step's without: `step`).
 */
export function denseRelevance(
  ctx: Context,
  text: string,
  depth: number,
  weight: number,
  lead = LEXICAL_LEAD,
  step: "first" | "later" = "first",
): Ranked[] | undefined {
  const vector = ctx.dense?.tasks.get(text);
  if (ctx.dense === undefined || vector === undefined) return undefined;
  const both = hybridTwoWays(ctx.index, text, vector, ctx.dense.tools, {
    k: depth,
    weights: [1, weight],
    lexicalLead: lead,
    canLead: callableAsAsked(text, (tool) => needsSaidNumber(ctx.defs.get(tool))),
    siblingsOf: (tool) => ctx.siblings.get(tool) ?? [],
  });
  return step === "first" ? both.withApis : both.plain;
}

/** First-step variants with embeddings: retrieval fused with them, then cold and warm fusion on that relevance. */
export function embeddedFirstSteps(ctx: Context, text: string, fuse: (relevance: Ranked[], history: "none" | "first") => string[]): [string, string[]][] {
  const vector = ctx.dense?.tasks.get(text);
  if (ctx.dense === undefined || vector === undefined) return [];
  const variants: [string, string[]][] = [["embeddings only (cosine)", rankByCosine(vector, ctx.dense.tools, 30).map((r) => r.name)]];
  for (const weight of DENSE_WEIGHTS)
    for (const lead of DENSE_LEADS) {
      const embedded = denseRelevance(ctx, text, 30, weight, lead) ?? [];
      const relevance = withUnfitLower(embedded, text, (tool) => needsSaidNumber(ctx.defs.get(tool)), UNFIT);
      variants.push(
        [withWeight("retrieval + embeddings", weight, lead), embedded.map((r) => r.name)],
        [withWeight("cold + embeddings: fused, no history", weight, lead), fuse(relevance, "none")],
        [withWeight("warm + embeddings: fused: all signals (first tools of history)", weight, lead), fuse(relevance, "first")],
      );
    }
  return variants;
}

/** The fused later step with the relevance routing uses when the task was embedded (the Worker embeds it at every step). */
export function laterWithEmbeddings(
  ctx: Context,
  text: string,
  input: Parameters<typeof fuseNextStep>[0],
  ablation: Parameters<typeof fuseNextStep>[1],
): [string, string[]][] {
  return DENSE_WEIGHTS.flatMap((weight) =>
    DENSE_LEADS.flatMap((lead): [string, string[]][] => {
      const embedded = denseRelevance(ctx, text, 30, weight, lead, "later");
      return embedded === undefined
        ? []
        : [[withWeight("fused + embeddings: all signals", weight, lead), fuseNextStep({ ...input, relevance: embedded }, ablation).map((c) => c.tool)]];
    }),
  );
}

/** Every tool's vector, of the text the product embeds (toolEmbeddingText), and every measured task's. */
export async function datasetVectors(dataset: Dataset, vectors: EmbeddingVectors | undefined): Promise<Context["dense"]> {
  if (vectors === undefined) return undefined;
  const toolVectors = await vectors.of(dataset.defs.map(toolEmbeddingText));
  const texts = [...new Set(dataset.tasks.filter((t) => inHalf(t.group)).map((t) => t.text))];
  const taskVectors = await vectors.of(texts);
  return {
    tools: new Map(dataset.defs.flatMap((d, i) => (toolVectors[i] === undefined ? [] : [[d.name, toolVectors[i]] as const]))),
    tasks: new Map(texts.flatMap((text, i) => (taskVectors[i] === undefined ? [] : [[text, taskVectors[i]] as const]))),
  };
}
