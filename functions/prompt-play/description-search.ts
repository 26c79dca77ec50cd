import type { ToolDefinition } from "../tools/definition";
import {
  initialBeamState,
  runBeamSearch,
  type BeamNode,
  type BeamProblem,
  type BeamRecord,
  type BeamSearchState,
  type Candidate,
  type StopReason,
} from "./beam-search";
import { budgetedChat, isBudgetExhausted, type Budget } from "./budget";
import { parseModelJson, readString, stableJson } from "./model-output";
import { clip, proposeDescriptionMessages, reflectDescriptionMessages, showValue, type SolveReport } from "./prompts";
import type { BeamSettings } from "./settings";
import type { Demonstration, PlayDependencies, PlayPurpose, SolveOutcome, ToolArguments } from "./types";

/**
 * Tool description optimisation (§2.3, Algorithm 2). The demonstrations found by tool play are
 * the proxy test set: a description's score is the fraction of them the base model solves when
 * it sees only that description (r = E_j[Score(B(x_j, u), y_j)]). The base model's wrong
 * invocations and the tool's errors feed a self-reflection, and the next description is sampled
 * by applying it. The original description is the root and is scored like any other, so the
 * result says how much better the best one is.
 */

/** Longer answers are not descriptions: the prompt asks for at most 150 words. */
const MAX_DESCRIPTION_CHARS = 4_000;
const OUTPUT_CHARS = 400;

/** A search node: a description, how it did on the demonstrations, and (once expanded) its reflection. */
export interface DescriptionNodeState {
  description: string;
  solved: number;
  total: number;
  reports: SolveReport[];
  reflection?: string | undefined;
}

export interface DescriptionSearchInput {
  tool: ToolDefinition;
  /** The original description u_0: the root. */
  description: string;
  /** The proxy test set V. */
  demonstrations: readonly Demonstration[];
  settings: BeamSettings;
  budget: Budget;
  deps: Pick<PlayDependencies, "chat" | "solveWith" | "onProgress">;
  /** A checkpointed state to resume (its root is already scored). */
  state?: BeamSearchState<DescriptionNodeState> | undefined;
  onCheckpoint?(state: BeamSearchState<DescriptionNodeState>): void | Promise<void>;
  /** Ranked descriptions to keep (default 3). */
  keepBest?: number;
}

export interface RankedDescription {
  id: string;
  description: string;
  score: number;
}

export interface DescriptionSearchResult {
  bestDescription: string;
  /** Null when the budget ran out before the original description was scored. */
  bestScore: number | null;
  originalScore: number | null;
  /** The best descriptions found, best first. */
  ranking: RankedDescription[];
  records: BeamRecord[];
  stoppedBy: StopReason;
  /** Undefined when the budget ran out before the root was scored. */
  state: BeamSearchState<DescriptionNodeState> | undefined;
}

/** Whitespace-insensitive identity of a description. */
export function descriptionKey(state: Pick<DescriptionNodeState, "description">): string {
  return state.description.trim().replace(/\s+/g, " ");
}

/**
 * Whether the base model's arguments match a demonstration's, for `solveWith` implementations:
 * key order is ignored and scalar values compare as text (query strings carry `2024` and
 * `"2024"` alike).
 */
export function invocationsMatch(used: ToolArguments, expected: ToolArguments): boolean {
  const asText = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(asText);
    if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asText(v)]));
    return value === undefined || value === null ? value : String(value);
  };
  return stableJson(asText(used)) === stableJson(asText(expected));
}

/** The errors themselves, when the model's reflection is unreadable: they are the paper's feedback e_j. */
function fallbackReflection(reports: readonly SolveReport[]): string {
  const failed = reports.filter((r) => !r.solved);
  if (failed.length === 0) return "Every request was solved; make the description clearer and more complete without changing what works.";
  return [
    "The assistant failed these requests with the current description:",
    ...failed.map(
      (r) =>
        `- "${clip(r.query, 200)}": called ${r.usedArgs === undefined ? "nothing valid" : showValue(r.usedArgs, 200)}; a working call is ${showValue(r.expectedArgs, 200)}${r.error === undefined ? "" : `; error: ${clip(r.error, 300)}`}`,
    ),
  ].join("\n");
}

interface Context {
  tool: ToolDefinition;
  demonstrations: readonly Demonstration[];
  settings: BeamSettings;
  budget: Budget;
  ask: (messages: Parameters<PlayDependencies["chat"]>[0], purpose: PlayPurpose) => Promise<string>;
  solveWith: PlayDependencies["solveWith"];
}

/** A throwing solver is an unsolved demonstration, with its message as the error. */
async function solveSafely(ctx: Context, description: string, demonstration: Demonstration): Promise<SolveOutcome> {
  try {
    return await ctx.solveWith(description, demonstration);
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Algorithm 2, lines 2–3: run the base model on every demonstration with `description`; score = fraction solved. */
async function scoreDescription(ctx: Context, description: string): Promise<DescriptionNodeState> {
  const reports: SolveReport[] = [];
  for (const demonstration of ctx.demonstrations) {
    // The solver runs the base model: it is a model call, checked and charged like the others.
    ctx.budget.check();
    const outcome = await solveSafely(ctx, description, demonstration);
    const calls = outcome.modelCalls ?? (outcome.usage === undefined ? 0 : 1);
    if (calls > 0 || outcome.usage !== undefined) ctx.budget.charge("solve", outcome.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 }, calls);
    reports.push({
      query: demonstration.query,
      expectedArgs: demonstration.args,
      usedArgs: outcome.usedArgs,
      solved: outcome.ok,
      error: outcome.error,
      ...(outcome.output === undefined ? {} : { output: showValue(outcome.output, OUTPUT_CHARS) }),
    });
  }
  const solved = reports.filter((r) => r.solved).length;
  return { description, solved, total: reports.length, reports };
}

function scoreOf(state: DescriptionNodeState): number {
  return state.total === 0 ? 0 : state.solved / state.total;
}

function candidateOf(state: DescriptionNodeState): Candidate<DescriptionNodeState> {
  return { state, score: scoreOf(state), summary: `${state.solved}/${state.total} solved · ${clip(descriptionKey(state), 100)}` };
}

/** Algorithm 2, line 4, done when a node is first expanded: reflections of pruned nodes would never be used. */
async function reflect(ctx: Context, node: BeamNode<DescriptionNodeState>): Promise<BeamNode<DescriptionNodeState>> {
  if (node.state.reflection !== undefined) return node;
  const answer = parseModelJson(
    await ctx.ask(
      reflectDescriptionMessages({ tool: ctx.tool, description: node.state.description, score: node.score, reports: node.state.reports }),
      "reflect_description",
    ),
  );
  const reflection = (answer === undefined ? undefined : readString(answer, "reflection", "feedback")) ?? fallbackReflection(node.state.reports);
  return { ...node, state: { ...node.state, reflection } };
}

/** Algorithm 2, lines 1–3: a new description applying the parent's reflection, scored on the demonstrations. */
async function descriptionTransition(
  ctx: Context,
  parent: BeamNode<DescriptionNodeState>,
  expansion: number,
): Promise<Candidate<DescriptionNodeState> | undefined> {
  const reflection = parent.state.reflection ?? fallbackReflection(parent.state.reports);
  const answer = parseModelJson(
    await ctx.ask(
      proposeDescriptionMessages({
        tool: ctx.tool,
        description: parent.state.description,
        reflection,
        exploration: { index: expansion, of: ctx.settings.expansionsPerNode },
      }),
      "propose_description",
    ),
  );
  const description = answer === undefined ? undefined : readString(answer, "description");
  if (description === undefined || description.length > MAX_DESCRIPTION_CHARS) return undefined;
  // The parent again is no new state; scoring it would only spend the base model's budget.
  if (descriptionKey({ description }) === descriptionKey(parent.state)) return undefined;
  return candidateOf(await scoreDescription(ctx, description));
}

/** Algorithm 2 under beam search: the description on which the base model solves most demonstrations. */
export async function runDescriptionSearch(input: DescriptionSearchInput): Promise<DescriptionSearchResult> {
  if (input.demonstrations.length === 0) throw new Error("the description search needs at least one demonstration to score descriptions on");
  const { deps } = input;
  const keepBest = Math.max(1, input.keepBest ?? 3);
  const ctx: Context = {
    tool: input.tool,
    demonstrations: input.demonstrations,
    settings: input.settings,
    budget: input.budget,
    ask: budgetedChat(deps.chat, input.budget),
    solveWith: deps.solveWith,
  };

  let state = input.state;
  if (state === undefined) {
    let root: DescriptionNodeState;
    try {
      root = await scoreDescription(ctx, input.description);
    } catch (error) {
      if (!isBudgetExhausted(error)) throw error;
      return { bestDescription: input.description, bestScore: null, originalScore: null, ranking: [], records: [], stoppedBy: "budget", state: undefined };
    }
    state = initialBeamState([candidateOf(root)], { rootsAreResults: true, keepBest, key: descriptionKey });
    const rootRecord = state.records[0];
    const rootEntry = rootRecord?.beam[0];
    if (rootEntry !== undefined) deps.onProgress?.({ type: "node_scored", phase: "descriptions", node: rootEntry });
    if (rootRecord !== undefined) deps.onProgress?.({ type: "beam", phase: "descriptions", record: rootRecord });
    await input.onCheckpoint?.(state);
  }

  const problem: BeamProblem<DescriptionNodeState> = {
    prepare: (node) => reflect(ctx, node),
    expand: (parent, expansion) => descriptionTransition(ctx, parent, expansion),
    shouldStop: () => input.budget.exhausted,
    // Every demonstration solved: no description can score higher.
    converged: (_beam, best) => (best[0]?.score ?? 0) >= 1,
    key: descriptionKey,
  };
  const outcome = await runBeamSearch({
    settings: input.settings,
    state,
    keepBest,
    problem,
    hooks: {
      onNode: (node) => deps.onProgress?.({ type: "node_scored", phase: "descriptions", node }),
      onBeam: (record) => deps.onProgress?.({ type: "beam", phase: "descriptions", record }),
      ...(input.onCheckpoint === undefined ? {} : { onCheckpoint: input.onCheckpoint }),
    },
  });
  const best = outcome.best[0];
  return {
    bestDescription: best?.state.description ?? input.description,
    bestScore: best?.score ?? null,
    originalScore: outcome.state.records[0]?.beam[0]?.score ?? null,
    ranking: outcome.best.map((n) => ({ id: n.id, description: n.state.description, score: n.score })),
    records: outcome.records,
    stoppedBy: outcome.stoppedBy,
    state: outcome.state,
  };
}
