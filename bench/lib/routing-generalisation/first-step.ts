/** The first step: every variant's ranking of a task's first tool, and the FIRST_DEBUG printer. */
import { fuseFirstStep, type FusionAblation } from "../../../functions/toolnet/signal-fusion";
import type { DataFlowSource } from "../../../functions/toolnet/data-flow";
import type { ToolGraph } from "../../../functions/toolnet/graph";
import type { Ranked } from "../../../functions/toolnet/retrieval";
import { coverageRanking } from "../../../functions/toolnet/retrieval/task-clauses";
import { coverTaskWords } from "../../../functions/toolnet/retrieval/term-coverage";
import { startingListOf } from "../../../functions/toolnet/route-fallback";
import { fillToK, routeStandIns } from "../../../functions/toolnet/fill-to-k";
import type { Vote } from "../../../functions/toolnet/task-memory";
import { needsSaidNumber, withUnfitLower } from "../../../functions/toolnet/task-fit";
import { type Context, covered, searchWithApis } from "./context";
import { embeddedFirstSteps } from "./embeddings";
import { ANSWER_K, recall } from "./measures";
import { CLAUSES, FIRST_MIN_SIMILARITY, NAME_LOOKUPS, UNFIT, WEIGHTS, WORD_COVERAGE } from "./options";

/** Warm first steps: history always may overrule the best match, never, and as routing decides it per tenant (history-calibration.ts). */
export const WARM_ALWAYS = "warm: fused, history always may lead";
export const WARM_BEST_FIRST = "warm: fused, the best match first";
export const WARM = "warm: fused: all signals (first tools of history)";
/** The same, calibrated alike, without the weaker votes for the tools similar tasks used after their first. */
export const WARM_FIRST_VOTES_ONLY = "warm: fused, without votes for tools used later";
export const WARM_ALWAYS_FIRST_VOTES = "warm: fused, history always may lead, first votes only";
export const WARM_BEST_FIRST_FIRST_VOTES = "warm: fused, the best match first, first votes only";
/** The route answer at k = 10 as routing makes it (calibrated as WARM), and its two forms. */
export const WARM_ANSWER = "warm: route answer (fused, filled to k)";
export const WARM_ANSWER_ALWAYS = "warm: route answer, history always may lead";
export const WARM_ANSWER_BEST_FIRST = "warm: route answer, the best match first";

/** What every first-step variant ranks from: the task's rankings by its words, history's votes, and the default cold and warm fusions. */
interface FirstStepInputs {
  text: string;
  plain: Ranked[];
  covering: Ranked[];
  relevance: Ranked[];
  firstVotes: Vote[];
  allVotes: Vote[];
  producersOf: (tool: string) => readonly DataFlowSource[];
  siblingsOf: (tool: string) => readonly string[];
  coldInput: FirstStepInput;
  warmInput: FirstStepInput;
  /** The bench's knobs for the default fusions (its weights and name lookups, from the command line). */
  ablation: FusionAblation;
  cold: FirstStepCandidates;
  warm: FirstStepCandidates;
  warmBestFirst: FirstStepCandidates;
  /** Another ranking (a retrieval variant, or with embeddings) fused as the default is, cold or with the first tools of history. */
  fusedWith: (ranking: Ranked[], history: "none" | "first") => string[];
  /** The route answer at k = 10: the fused ranking filled to k by the stand-ins routing uses. */
  answer: (fused: FirstStepCandidates, graph: ToolGraph) => string[];
}
type FirstStepInput = Parameters<typeof fuseFirstStep>[0];
type FirstStepCandidates = ReturnType<typeof fuseFirstStep>;

export function firstStepRankings(ctx: Context, text: string): Map<string, string[]> {
  const inputs = firstStepInputs(ctx, text);
  return new Map([
    ...singleSignalRows(ctx, inputs),
    ...coldRows(ctx, inputs),
    ...warmRows(ctx, inputs),
    ...variantFirstSteps(ctx, text, inputs.fusedWith),
    ...embeddedFirstSteps(ctx, text, inputs.fusedWith),
  ]);
}

function firstStepInputs(ctx: Context, text: string): FirstStepInputs {
  const plain = ctx.index.search(text, 30);
  const clauses = coverageRanking(text, (t, depth) => searchWithApis(ctx, t, depth), 30, CLAUSES);
  const covering = covered(ctx, text, clauses);
  const relevance = withUnfitLower(covering, text, (tool) => needsSaidNumber(ctx.defs.get(tool)), UNFIT);
  const firstVotes = ctx.memory.votes(text, { tools: "first", minSimilarity: FIRST_MIN_SIMILARITY });
  const allVotes = ctx.memory.votes(text, { tools: "all", minSimilarity: FIRST_MIN_SIMILARITY });
  const producersOf = (tool: string) => ctx.flow.producers(tool);
  const siblingsOf = (tool: string) => ctx.siblings.get(tool) ?? [];
  const ablation: FusionAblation = { weights: WEIGHTS, nameLookupLeaders: NAME_LOOKUPS };
  const coldInput = { relevance, history: [], producersOf, siblingsOf, task: text };
  const cold = fuseFirstStep(coldInput, ablation);
  const warmInput = {
    relevance,
    history: firstVotes,
    usedVotes: allVotes,
    producersOf,
    siblingsOf,
    task: text,
  };
  const warm = fuseFirstStep(warmInput, ablation);
  const warmBestFirst = fuseFirstStep({ ...warmInput, historyLeads: false }, ablation);
  const fusedWith = (ranking: Ranked[], history: "none" | "first"): string[] =>
    fuseFirstStep({ ...coldInput, relevance: ranking, history: history === "first" ? firstVotes : [] }, ablation).map((c) => c.tool);
  const answer = (fused: FirstStepCandidates, graph: ToolGraph): string[] =>
    fillToK(
      fused,
      ANSWER_K,
      routeStandIns({
        index: ctx.index,
        graph,
        starting: startingListOf(ctx.defs),
        flow: ctx.flow,
        siblingsOf,
        task: text,
        previous: null,
        best: fused[0]?.tool,
      }),
    ).ranked.map((c) => c.tool);
  return {
    text,
    plain,
    covering,
    relevance,
    firstVotes,
    allVotes,
    producersOf,
    siblingsOf,
    coldInput,
    warmInput,
    ablation,
    cold,
    warm,
    warmBestFirst,
    fusedWith,
    answer,
  };
}

/** Retrieval alone and its refinements, then each signal fused alone with relevance. */
function singleSignalRows(
  ctx: Context,
  { text, plain, covering, relevance, firstVotes, allVotes, producersOf, siblingsOf, coldInput, ablation }: FirstStepInputs,
): [string, string[]][] {
  return [
    ["retrieval only", plain.map((r) => r.name)],
    ["retrieval, each clause's ranking fused", covering.map((r) => r.name)],
    ["retrieval, tools the task cannot call lower", withUnfitLower(plain, text, (tool) => needsSaidNumber(ctx.defs.get(tool)), UNFIT).map((r) => r.name)],
    ["cold: fused, no history, without lowering tools the task cannot call", fuseFirstStep({ ...coldInput, relevance: covering }, ablation).map((c) => c.tool)],
    ["+ task history (first tools)", fuseFirstStep({ relevance, history: firstVotes }, { weights: WEIGHTS }).map((c) => c.tool)],
    ["+ task history (all tools)", fuseFirstStep({ relevance, history: allVotes }, { weights: WEIGHTS }).map((c) => c.tool)],
    ["+ producers of relevant tools' inputs", fuseFirstStep({ relevance, history: [], producersOf }, { weights: WEIGHTS }).map((c) => c.tool)],
    ["+ operations of the same API", fuseFirstStep({ relevance, history: [], siblingsOf }, { weights: WEIGHTS }).map((c) => c.tool)],
  ];
}

/** Cold start (no history): the default fusion, its ablations, and the route answer. */
function coldRows(ctx: Context, { text, plain, coldInput, ablation, cold, fusedWith, answer }: FirstStepInputs): [string, string[]][] {
  return [
    ["cold: fused, no history", cold.map((c) => c.tool)],
    [
      "cold: fused, no history, without API evidence",
      fusedWith(
        withUnfitLower(covered(ctx, text, plain), text, (tool) => needsSaidNumber(ctx.defs.get(tool)), UNFIT),
        "none",
      ),
    ],
    ["cold: fused, no history, same-API operations raised too", fuseFirstStep(coldInput, { ...ablation, siblingsWidenOnly: false }).map((c) => c.tool)],
    ["cold: fused, no history, best match not kept first", fuseFirstStep(coldInput, { ...ablation, bestMatchLeads: false }).map((c) => c.tool)],
    ["cold: route answer (fused, filled to k)", answer(cold, ctx.coldGraph)],
  ];
}

/** With history: whether it may overrule the best match, which of its votes count, and the route answers. */
function warmRows(ctx: Context, { coldInput, allVotes, warmInput, ablation, warm, warmBestFirst, answer }: FirstStepInputs): [string, string[]][] {
  return [
    [WARM_ALWAYS, warm.map((c) => c.tool)],
    [WARM_ALWAYS_FIRST_VOTES, fuseFirstStep({ ...warmInput, usedVotes: [] }, ablation).map((c) => c.tool)],
    [WARM_BEST_FIRST_FIRST_VOTES, fuseFirstStep({ ...warmInput, usedVotes: [], historyLeads: false }, ablation).map((c) => c.tool)],
    ["warm: fused: all signals (all tools of history)", fuseFirstStep({ ...coldInput, history: allVotes }, ablation).map((c) => c.tool)],
    [WARM_ANSWER_ALWAYS, answer(warm, ctx.graph)],
    [WARM_ANSWER_BEST_FIRST, answer(warmBestFirst, ctx.graph)],
    [WARM_BEST_FIRST, warmBestFirst.map((c) => c.tool)],
  ];
}

/** First-step rows of each command-line retrieval variant: its ranking with coverage as routing re-ranks, then cold and warm fusion on it. */
export function variantFirstSteps(ctx: Context, text: string, fuse: (relevance: Ranked[], history: "none" | "first") => string[]): [string, string[]][] {
  return ctx.variants.flatMap(({ label, search, text: asSeen, afterCoverage }): [string, string[]][] => {
    const ranked = search(text, 30);
    const covered = coverTaskWords(
      ranked,
      ctx.index.termImpacts(
        asSeen?.(text) ?? text,
        ranked.map((r) => r.name),
      ),
      WORD_COVERAGE,
    );
    const covering = afterCoverage?.(covered, ranked, text) ?? covered;
    const relevance = withUnfitLower(covering, text, (tool) => needsSaidNumber(ctx.defs.get(tool)), UNFIT);
    return [
      [`${label}: retrieval + coverage`, covering.map((r) => r.name)],
      [`${label}: cold: fused, no history`, fuse(relevance, "none")],
      [`${label}: warm: fused, first tools of history`, fuse(relevance, "first")],
    ];
  });
}

/** FIRST_DEBUG=1|warm|VARIANT: tasks where that first-step variant's top 5 differs in recall from FIRST_DEBUG_BASE's (default plain retrieval). */
export function debugFirstStep(ctx: Context, text: string, gold: readonly string[]): void {
  const rankings = firstStepRankings(ctx, text);
  const asked = process.env.FIRST_DEBUG ?? "";
  const variant = rankings.has(asked) ? asked : asked === "warm" ? WARM_ALWAYS : "cold: fused, no history";
  const plain = rankings.get(process.env.FIRST_DEBUG_BASE ?? "retrieval only") ?? [];
  const fused = rankings.get(variant) ?? [];
  const a = recall(gold, plain.slice(0, 5));
  const b = recall(gold, fused.slice(0, 5));
  if (process.env.FIRST_DEBUG_MISSES !== undefined) {
    if (b < 1)
      console.log(`MISS ${text.slice(0, 200)}\n  gold ${gold.map((g) => `${g}@${fused.indexOf(g) + 1}`).join(", ")}\n  fused ${fused.slice(0, 8).join(", ")}`);
    return;
  }
  if (a === b) return;
  console.log(
    `${b > a ? "GAIN" : "LOSS"} ${text.slice(0, 140)}\n  gold ${gold.join(", ")}\n  plain ${plain.slice(0, 6).join(", ")}\n  fused ${fused.slice(0, 6).join(", ")}`,
  );
}
