import { z } from "zod";
import type { ChatMessage } from "../llm/client";
import type { TokenUsage } from "../llm/usage";
import type { ModelTurn } from "./budget";
import type { BeamEntry, BeamRecord, StopReason } from "./beam-search";
import type { PlayCheckpoint } from "./checkpoint";

/**
 * The shapes Play2Prompt shares with its caller. The job is pure: the model, the tool and the
 * base-model solver are injected, so the same code runs in a Durable Object alarm, a queue
 * consumer or a unit test with fakes.
 */

export type ToolArguments = Record<string, unknown>;

/** A demonstration v = (x, y, i) of the paper, with the tool's output and the judge's score. */
export const DemonstrationSchema = z.object({
  /** x: a user query this invocation answers. */
  query: z.string(),
  /** i: the invocation's arguments, which really ran and were judged valid. */
  args: z.record(z.string(), z.unknown()),
  /** o, shortened: what the tool returned. */
  resultSummary: z.string(),
  /** y: the answer to the query, from the tool's output. */
  answer: z.string(),
  /** The model-judged quality, normalised to [0, 1]. */
  score: z.number(),
});
export type Demonstration = z.infer<typeof DemonstrationSchema>;

/** What one real call of the tool gave. */
export interface ToolCallOutcome {
  ok: boolean;
  status?: number | undefined;
  body: unknown;
  error?: string | undefined;
}

/** The base model solving a demonstration's query with a description: did its invocation work and match? */
export interface SolveOutcome {
  /** Solved: the invocation ran and agrees with the demonstration. */
  ok: boolean;
  /** The arguments the base model used, when it produced an invocation. */
  usedArgs?: ToolArguments | undefined;
  error?: string | undefined;
  output?: unknown;
  /** The base model's usage, charged to the job's budget. */
  usage?: TokenUsage | undefined;
  /** Model calls the solve made (1 when usage is given and this is not). */
  modelCalls?: number | undefined;
}

export type PlayPurpose =
  | "propose_invocation"
  | "validate_invocation"
  | "sample_query"
  | "sample_answer"
  | "score_demonstration"
  | "reflect_demonstration"
  | "propose_description"
  | "reflect_description";

export type PlayPhase = "demonstrations" | "descriptions";

export type PlayEvent =
  | { type: "phase_started"; phase: PlayPhase }
  | { type: "invocation_rejected"; parentId: string; attempt: number; args?: ToolArguments | undefined; reason: string }
  | { type: "node_scored"; phase: PlayPhase; node: BeamEntry }
  | { type: "beam"; phase: PlayPhase; record: BeamRecord }
  | { type: "phase_finished"; phase: PlayPhase; stoppedBy: StopReason };

export interface PlayDependencies {
  /** The optimisation model M. */
  chat(messages: ChatMessage[], purpose: PlayPurpose): Promise<ModelTurn>;
  /** The tool g, called for real with the proposed arguments. */
  callTool(args: ToolArguments): Promise<ToolCallOutcome>;
  /** The base model B with `description` on the demonstration's query, its invocation run and compared. */
  solveWith(description: string, demonstration: Demonstration): Promise<SolveOutcome>;
  /** Progress, e.g. the beam at each depth with scores. */
  onProgress?(event: PlayEvent): void;
  /** Resumable state after every step; awaited, so the job can persist it before going on. */
  onCheckpoint?(state: PlayCheckpoint): void | Promise<void>;
}
