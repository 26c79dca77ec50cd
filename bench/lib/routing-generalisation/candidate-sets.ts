/** Run candidate sets: every variant's set of tools for a whole run, its figures, and the ROUTING_DEBUG printer. */
import { candidateSet, learnedSuccessors } from "../../../functions/toolnet/graph";
import { searchCoveringWords } from "../../../functions/toolnet/retrieval/term-coverage";
import { fuseRunCandidates } from "../../../functions/toolnet/signal-fusion";
import { needsSaidNumber, withUnfitLower } from "../../../functions/toolnet/task-fit";
import { type Context, routingSearch } from "./context";
import type { Ranked } from "../../../functions/toolnet/retrieval";
import { add, MAX_TOOLS, recall, type Report } from "./measures";
import { NAME_LOOKUPS, UNFIT, WEIGHTS } from "./options";
import { only, without } from "./signal-sets";

export function candidateSets(ctx: Context, text: string): Map<string, string[]> {
  const unfit = (tool: string) => needsSaidNumber(ctx.defs.get(tool));
  const plain = withUnfitLower(ctx.index.search(text, 30), text, unfit, UNFIT);
  const relevance = withUnfitLower(searchCoveringWords(ctx.index, text, 30, routingSearch(ctx)), text, unfit, UNFIT);
  const history = ctx.memory.votes(text, { tools: "all" });
  const base = {
    task: text,
    relevance,
    history,
    seeds: 6,
    learnedAfter: (tool: string) => (ctx.graph.tools.has(tool) ? learnedSuccessors(ctx.graph, tool) : []),
    dataFlowAfter: (tool: string) => ctx.flow.successors(tool),
    producersOf: (tool: string) => ctx.flow.producers(tool),
    siblingsOf: (tool: string) => ctx.siblings.get(tool) ?? [],
    maxTools: MAX_TOOLS,
    tokenBudget: Number.POSITIVE_INFINITY,
    costOf: ctx.cost,
  };
  const ablation = { nameLookupLeaders: NAME_LOOKUPS, weights: WEIGHTS };
  const seeds = plain.slice(0, 6).map((r) => r.name);
  // Today's candidate set: retrieval seeds + graph successors, whole definitions priced at 4 chars a token.
  const today = candidateSet(ctx.graph, seeds, {
    hops: 2,
    maxTools: 12,
    tokenBudget: 12_000,
    costOf: (tool) => Math.ceil(JSON.stringify(ctx.defs.get(tool) ?? {}).length / 4),
  }).candidates.map((c) => c.tool);
  return new Map([
    ["retrieval top 10", plain.slice(0, MAX_TOOLS).map((r) => r.name)],
    ["today: seeds + graph (≤12, 12k est. tokens)", today],
    ["fused: all signals", fuseRunCandidates(base, ablation).candidates.map((c) => c.tool)],
    ["fused − history", fuseRunCandidates(base, { ...ablation, signals: without("history") }).candidates.map((c) => c.tool)],
    ["fused − transition", fuseRunCandidates(base, { ...ablation, signals: without("transition") }).candidates.map((c) => c.tool)],
    ["fused − data flow", fuseRunCandidates(base, { ...ablation, signals: without("dataFlow") }).candidates.map((c) => c.tool)],
    ["fused − same API", fuseRunCandidates(base, { ...ablation, signals: without("sibling") }).candidates.map((c) => c.tool)],
    ["fused: relevance + data flow only", fuseRunCandidates(base, { ...ablation, signals: only("relevance", "dataFlow") }).candidates.map((c) => c.tool)],
  ]);
}

/** ROUTING_DEBUG: a task whose fused candidate set misses gold tools, with the relevance and history it had. */
export function debugCandidateSetMiss(ctx: Context, text: string, gold: readonly string[], relevance: readonly Ranked[], fused: readonly string[]): void {
  const missed = gold.filter((g) => !fused.includes(g));
  if (missed.length > 0)
    console.log(
      `MISS ${text}\n  gold ${gold.join(" > ")}\n  missed ${missed.join(", ")}\n  set ${fused.join(", ")}\n  rel ${relevance
        .slice(0, 10)
        .map((r) => r.name)
        .join(", ")}\n  hist ${ctx.memory
        .votes(text, { tools: "all" })
        .slice(0, 6)
        .map((v) => v.name)
        .join(", ")}`,
    );
}

/** The figures of each variant's candidate set: recall, all gold, size and tokens. */
export function addCandidateSets(report: Report, ctx: Context, gold: readonly string[], sets: Map<string, string[]>): void {
  for (const [variant, set] of sets) {
    add(report.sets, `${variant}|recall`, recall(gold, set.slice(0, variant.startsWith("today") ? 12 : MAX_TOOLS)));
    add(report.sets, `${variant}|all`, recall(gold, set) === 1 ? 1 : 0);
    add(report.sets, `${variant}|size`, set.length);
    add(
      report.sets,
      `${variant}|tokens`,
      set.reduce((sum, tool) => sum + ctx.cost(tool), 0),
    );
    add(
      report.sets,
      `${variant}|wholeDefTokens`,
      set.reduce((sum, tool) => sum + Math.ceil(JSON.stringify(ctx.defs.get(tool) ?? {}).length / 4), 0),
    );
  }
}
