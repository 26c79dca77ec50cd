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
import { budgetedChat, type Budget } from "./budget";
import { parseModelJson, readArguments, readBoolean, readNumber, readString, stableJson } from "./model-output";
import {
  clip,
  proposeInvocationMessages,
  reflectDemonstrationMessages,
  sampleAnswerMessages,
  sampleQueryMessages,
  scoreDemonstrationMessages,
  showValue,
  validateInvocationMessages,
  type EarlierSample,
  type RejectedInvocation,
} from "./prompts";
import type { PlaySettings } from "./settings";
import type { Demonstration, PlayDependencies, PlayPurpose, ToolArguments, ToolCallOutcome } from "./types";

/**
 * Tool example demonstration optimisation (§2.2, Algorithm 1). Queries are not sampled first:
 * an invocation is, then run for real, then checked by the model (rejection sampling), and only
 * then is a user query and its answer written for it, refined over N_refine rollout steps in
 * which the model scores the demonstration and reflects on it. The reflection of a node guides
 * the invocations its children try. Beam search keeps the best demonstrations.
 */

const MAX_SCORE = 10;
const RESULT_SUMMARY_CHARS = 1_500;

/** A search node: the demonstration (none at the root) and the reflection a_t that guides its children. */
export interface DemonstrationNodeState {
  demonstration?: Demonstration | undefined;
  reflection?: string | undefined;
}

export type DemonstrationSettings = Pick<PlaySettings, "depth" | "beamWidth" | "expansionsPerNode" | "refineSteps" | "invocationAttempts" | "demonstrations">;

export interface DemonstrationSearchInput {
  tool: ToolDefinition;
  /** The description u the invocations are sampled from. */
  description: string;
  settings: DemonstrationSettings;
  budget: Budget;
  deps: Pick<PlayDependencies, "chat" | "callTool" | "onProgress">;
  /** A checkpointed state to resume. */
  state?: BeamSearchState<DemonstrationNodeState> | undefined;
  onCheckpoint?(state: BeamSearchState<DemonstrationNodeState>): void | Promise<void>;
}

export interface DemonstrationSearchResult {
  /** The top M demonstrations, best first. */
  demonstrations: Demonstration[];
  records: BeamRecord[];
  stoppedBy: StopReason;
  state: BeamSearchState<DemonstrationNodeState>;
}

/** Identity of a demonstration: the same query for the same invocation is the same example. */
export function demonstrationKey(state: DemonstrationNodeState): string {
  const d = state.demonstration;
  return d === undefined ? "(root)" : `${d.query.trim().toLowerCase().replace(/\s+/g, " ")}\u0000${stableJson(d.args)}`;
}

/** The tool's answer as one short text, the status first when there is one. */
export function summarizeResult(outcome: ToolCallOutcome): string {
  const status = outcome.status === undefined ? "" : `HTTP ${outcome.status}: `;
  return `${status}${showValue(outcome.body, RESULT_SUMMARY_CHARS)}`;
}

function describeFailure(outcome: ToolCallOutcome): string {
  const status = outcome.status === undefined ? "the call failed" : `HTTP ${outcome.status}`;
  // Callers often put only the status in `error`; saying it twice helps nobody.
  const error = outcome.error === undefined || outcome.error === "" || outcome.error === status ? "" : ` — ${clip(outcome.error, 600)}`;
  const body = outcome.body === undefined || outcome.body === null || outcome.body === "" ? "" : ` — response: ${showValue(outcome.body, 600)}`;
  return `${status}${error}${body}`;
}

/** A throwing tool is a failed call: its message is feedback like any other error. */
async function callSafely(callTool: PlayDependencies["callTool"], args: ToolArguments): Promise<ToolCallOutcome> {
  try {
    return await callTool(args);
  } catch (error) {
    return { ok: false, body: undefined, error: error instanceof Error ? error.message : String(error) };
  }
}

interface Context {
  tool: ToolDefinition;
  description: string;
  settings: DemonstrationSettings;
  ask: (messages: Parameters<PlayDependencies["chat"]>[0], purpose: PlayPurpose) => Promise<string>;
  callTool: PlayDependencies["callTool"];
  onProgress: PlayDependencies["onProgress"];
}

/** Algorithm 1, lines 1–6: sample, execute and verify invocations until one is valid (bounded). */
async function sampleValidInvocation(
  ctx: Context,
  parent: BeamNode<DemonstrationNodeState>,
  expansion: number,
): Promise<{ args: ToolArguments; outcome: ToolCallOutcome } | undefined> {
  const rejected: RejectedInvocation[] = [];
  const reject = (attempt: number, args: ToolArguments | undefined, reason: string): void => {
    rejected.push({ args, reason });
    ctx.onProgress?.({ type: "invocation_rejected", parentId: parent.id, attempt, args, reason });
  };
  for (let attempt = 1; attempt <= ctx.settings.invocationAttempts; attempt++) {
    const proposal = parseModelJson(
      await ctx.ask(
        proposeInvocationMessages({
          tool: ctx.tool,
          description: ctx.description,
          parentArgs: parent.state.demonstration?.args,
          reflection: parent.state.reflection,
          rejected,
          exploration: { index: expansion, of: ctx.settings.expansionsPerNode },
        }),
        "propose_invocation",
      ),
    );
    const args = proposal === undefined ? undefined : readArguments(proposal);
    if (args === undefined) {
      reject(attempt, undefined, 'the answer was not a JSON object of the form {"arguments": {...}}');
      continue;
    }
    const outcome = await callSafely(ctx.callTool, args);
    // A failed call is invalid by construction; asking the judge would only spend budget.
    if (!outcome.ok) {
      reject(attempt, args, describeFailure(outcome));
      continue;
    }
    const verdict = parseModelJson(
      await ctx.ask(
        validateInvocationMessages({ tool: ctx.tool, description: ctx.description, args, status: outcome.status, body: outcome.body }),
        "validate_invocation",
      ),
    );
    const valid = verdict === undefined ? undefined : readBoolean(verdict, "valid", "is_valid");
    if (valid !== true) {
      const reason = verdict === undefined ? undefined : readString(verdict, "reason", "explanation");
      reject(
        attempt,
        args,
        valid === false
          ? `judged invalid: ${reason ?? "no reason given"} (response: ${summarizeResult(outcome)})`
          : "the validity check gave no readable verdict",
      );
      continue;
    }
    return { args, outcome };
  }
  return undefined;
}

interface Sample extends EarlierSample {
  reason?: string | undefined;
}

/**
 * Algorithm 1, lines 7–12: N_refine rollout steps of query x, answer y, score r and reflection a,
 * each step seeing the previous step's feedback. The best-scored step is the new state; an
 * unreadable answer rejects only its own step.
 */
async function rollout(ctx: Context, args: ToolArguments, result: string): Promise<Sample | undefined> {
  const base = { tool: ctx.tool, description: ctx.description, args, result };
  let best: Sample | undefined;
  let earlier: EarlierSample | undefined;
  for (let step = 0; step < ctx.settings.refineSteps; step++) {
    const queryAnswer = parseModelJson(await ctx.ask(sampleQueryMessages({ ...base, earlier }), "sample_query"));
    const query = queryAnswer === undefined ? undefined : readString(queryAnswer, "query", "request");
    if (query === undefined) continue;
    const answerAnswer = parseModelJson(await ctx.ask(sampleAnswerMessages({ ...base, query }), "sample_answer"));
    const answer = answerAnswer === undefined ? undefined : readString(answerAnswer, "answer");
    if (answer === undefined) continue;
    const judged = parseModelJson(await ctx.ask(scoreDemonstrationMessages({ ...base, query, answer }), "score_demonstration"));
    const score = judged === undefined ? undefined : readNumber(judged, 0, MAX_SCORE, "score", "rating");
    if (score === undefined || judged === undefined) continue;
    const reason = readString(judged, "reason", "explanation");
    const reflected = parseModelJson(await ctx.ask(reflectDemonstrationMessages({ ...base, query, answer, score, reason }), "reflect_demonstration"));
    // A scored demonstration is kept even when its reflection is unreadable; it just guides nothing.
    const reflection = (reflected === undefined ? undefined : readString(reflected, "reflection", "feedback")) ?? "";
    const sample: Sample = { query, answer, score, reflection, reason };
    if (best === undefined || sample.score > best.score) best = sample;
    earlier = sample;
    if (score >= MAX_SCORE) break;
  }
  return best;
}

/** One state transition of Algorithm 1: a new demonstration, its score in [0, 1] and its reflection. */
async function demonstrationTransition(
  ctx: Context,
  parent: BeamNode<DemonstrationNodeState>,
  expansion: number,
): Promise<Candidate<DemonstrationNodeState> | undefined> {
  const invocation = await sampleValidInvocation(ctx, parent, expansion);
  if (invocation === undefined) return undefined;
  const result = summarizeResult(invocation.outcome);
  const sample = await rollout(ctx, invocation.args, result);
  if (sample === undefined) return undefined;
  const score = sample.score / MAX_SCORE;
  const demonstration: Demonstration = { query: sample.query, args: invocation.args, resultSummary: result, answer: sample.answer, score };
  return {
    state: { demonstration, reflection: sample.reflection },
    score,
    summary: `${clip(sample.query, 100)} → ${showValue(invocation.args, 100)}`,
  };
}

/** The empty root: there is no demonstration before the first transition. */
export function demonstrationRoot(): Candidate<DemonstrationNodeState> {
  return { state: {}, score: 0, summary: "(start: no demonstration yet)" };
}

/** Algorithm 1 under beam search: the top M demonstrations for the tool, found by playing with it. */
export async function runDemonstrationSearch(input: DemonstrationSearchInput): Promise<DemonstrationSearchResult> {
  const { settings, deps } = input;
  const ctx: Context = {
    tool: input.tool,
    description: input.description,
    settings,
    ask: budgetedChat(deps.chat, input.budget),
    callTool: deps.callTool,
    onProgress: deps.onProgress,
  };
  const keepBest = settings.demonstrations;
  let state = input.state;
  if (state === undefined) {
    state = initialBeamState([demonstrationRoot()], { rootsAreResults: false, keepBest, key: demonstrationKey });
    const rootRecord = state.records[0];
    if (rootRecord !== undefined) deps.onProgress?.({ type: "beam", phase: "demonstrations", record: rootRecord });
  }
  const problem: BeamProblem<DemonstrationNodeState> = {
    expand: (parent, expansion) => demonstrationTransition(ctx, parent, expansion),
    shouldStop: () => input.budget.exhausted,
    // M perfect demonstrations cannot be bettered: stop spending.
    converged: (_beam, best) => best.length >= keepBest && best.every((n) => n.score >= 1),
    key: demonstrationKey,
  };
  const outcome = await runBeamSearch({
    settings: { depth: settings.depth, beamWidth: settings.beamWidth, expansionsPerNode: settings.expansionsPerNode },
    state,
    keepBest,
    problem,
    hooks: {
      onNode: (node) => deps.onProgress?.({ type: "node_scored", phase: "demonstrations", node }),
      onBeam: (record) => deps.onProgress?.({ type: "beam", phase: "demonstrations", record }),
      ...(input.onCheckpoint === undefined ? {} : { onCheckpoint: input.onCheckpoint }),
    },
  });
  const demonstrations = outcome.best.flatMap((n) => (n.state.demonstration === undefined ? [] : [n.state.demonstration]));
  return { demonstrations, records: outcome.records, stoppedBy: outcome.stoppedBy, state: outcome.state };
}
