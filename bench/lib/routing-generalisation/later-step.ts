/** Later steps: every variant's ranking of the next tool after the gold previous one, why the fused one missed, and the LATER_DEBUG printer. */
import { learnedSuccessors, successors } from "../../../functions/toolnet/graph";
import { laterStepPrior } from "../../../functions/toolnet/later-step-prior";
import type { Ranked } from "../../../functions/toolnet/retrieval";
import { fuseNextStep, type NextStepAblation } from "../../../functions/toolnet/signal-fusion";
import type { Context } from "./context";
import { laterWithEmbeddings } from "./embeddings";
import { EVIDENCE, LATER_MIN_SIMILARITY, MIN_EVIDENCE, NEXT_WEIGHTS } from "./options";
import { without } from "./signal-sets";

/** Later steps: learned transitions always fused, and as routing decides it per tenant (signal-calibration.ts, transitions). */
export const LATER_ALWAYS = "fused, learned transitions always";
export const LATER = "fused: all signals";

export function laterStepRankings(ctx: Context, text: string, relevance: readonly Ranked[], previous: string): Map<string, string[]> {
  const history = ctx.memory.votes(text, { tools: { after: previous }, minSimilarity: LATER_MIN_SIMILARITY });
  const input = {
    previous,
    learned: learnedSuccessors(ctx.graph, previous),
    relevance,
    dataFlow: ctx.flow.successors(previous),
    history,
    prior: laterStepPrior(ctx.graph),
  };
  const ablation: NextStepAblation = { weights: NEXT_WEIGHTS, minEvidence: MIN_EVIDENCE, evidencePrior: EVIDENCE };
  return new Map([
    ["eq. 4 graph only (today)", successors(ctx.graph, previous, 10).map((r) => r.tool)],
    ["retrieval only", relevance.map((r) => r.name).filter((t) => t !== previous)],
    [LATER_ALWAYS, fuseNextStep(input, ablation).map((c) => c.tool)],
    ["fused − transition", fuseNextStep({ ...input, signals: without("transition") }, ablation).map((c) => c.tool)],
    ["fused, transitions seen once too", fuseNextStep(input, { ...ablation, minEvidence: 1 }).map((c) => c.tool)],
    ["fused − data flow", fuseNextStep({ ...input, signals: without("dataFlow") }, ablation).map((c) => c.tool)],
    ["fused − relevance", fuseNextStep({ ...input, signals: without("relevance") }, ablation).map((c) => c.tool)],
    ["fused − task history", fuseNextStep({ ...input, signals: without("history") }, ablation).map((c) => c.tool)],
    ["fused − later-step prior", fuseNextStep({ ...input, signals: without("prior") }, ablation).map((c) => c.tool)],
    ...laterWithEmbeddings(ctx, text, input, ablation),
  ]);
}

/** Why the fused later-step ranking missed `next` at k = 5: which signals knew it, and how high relevance put it. */
export function missReason(ctx: Context, relevance: readonly Ranked[], previous: string, next: string, fused: readonly string[]): string {
  const rank = fused.indexOf(next);
  if (rank >= 0 && rank < 5) return "hit@5";
  const learned = learnedSuccessors(ctx.graph, previous).some((l) => l.tool === next);
  const flow = ctx.flow.successors(previous).some((l) => l.to === next);
  const relevanceRank = relevance.findIndex((r) => r.name === next);
  const relevant = relevanceRank < 0 ? "not retrieved" : relevanceRank < 5 ? "relevance top 5" : relevanceRank < 10 ? "relevance 6–10" : "relevance >10";
  return `miss: ${learned ? "learned" : "no learned transition"}, ${flow ? "data-flow link" : "no data-flow link"}, ${relevant}`;
}

/**
 * LATER_DEBUG=VARIANT: later steps where that variant's top 5 holds the gold next tool and
 * LATER_DEBUG_BASE's (default LATER_ALWAYS) misses it, with what each signal offered. Only the
 * rows ranked per step can be named: the per-tenant default ("fused: all signals") is scored
 * after the pass, so name LATER_ALWAYS or "fused − transition" instead.
 */
export function debugLaterStep(
  ctx: Context,
  text: string,
  relevance: readonly Ranked[],
  previous: string,
  next: string,
  rankings: Map<string, string[]>,
): void {
  const base = rankings.get(process.env.LATER_DEBUG_BASE ?? LATER_ALWAYS) ?? [];
  const variant = rankings.get(process.env.LATER_DEBUG ?? "") ?? [];
  if (!variant.slice(0, 5).includes(next) || base.slice(0, 5).includes(next)) return;
  const learned = learnedSuccessors(ctx.graph, previous);
  const departures = learned.reduce((sum, l) => sum + l.observed, 0);
  console.log(
    `HOLDS ${previous} > ${next} | ${text.slice(0, 160)}\n  base ${base.slice(0, 6).join(", ")}\n  variant ${variant.slice(0, 6).join(", ")}` +
      `\n  rel ${relevance
        .slice(0, 8)
        .map((r) => `${r.name}:${(r.score / (relevance.find((b) => b.name !== previous)?.score ?? 1)).toFixed(2)}`)
        .join(", ")} (gold at ${relevance.findIndex((r) => r.name === next) + 1})` +
      `\n  learned (${departures} departures) ${learned
        .slice(0, 8)
        .map((l) => `${l.tool}×${l.observed}@${relevance.findIndex((r) => r.name === l.tool) + 1}~${relatedness(ctx, text, previous, l.tool).toFixed(2)}`)
        .join(", ")}` +
      `\n  history ${ctx.memory
        .votes(text, { tools: { after: previous }, minSimilarity: LATER_MIN_SIMILARITY })
        .map((v) => `${v.name}×${v.tasks}`)
        .join(", ")}`,
  );
}

/** The similarity of the task to the most similar remembered task that took previous → next (debugging). */
export function relatedness(ctx: Context, text: string, previous: string, next: string): number {
  for (const near of ctx.memory.nearest(text, 1_000_000, 0)) {
    if (near.tools.some((tool, i) => tool === previous && near.tools[i + 1] === next)) return near.similarity;
  }
  return 0;
}

/** ROUTING_DEBUG: a later step the fused ranking (learned transitions always) missed at k = 5, with what each signal offered. */
export function debugLaterMiss(ctx: Context, text: string, relevance: readonly Ranked[], previous: string, next: string, fused: readonly string[]): void {
  if (fused.slice(0, 5).includes(next)) return;
  console.log(
    `LATER ${previous} > ${next} | ${text.slice(0, 100)}\n  fused ${fused.slice(0, 6).join(", ")}\n  rel ${relevance
      .slice(0, 6)
      .map((r) => r.name)
      .join(", ")}\n  learned ${learnedSuccessors(ctx.graph, previous)
      .slice(0, 6)
      .map((l) => l.tool)
      .join(", ")}\n  flow ${ctx.flow
      .successors(previous)
      .slice(0, 8)
      .map((l) => l.to)
      .join(", ")}`,
  );
}
