import type { TokenUsage } from "../llm/usage";
import type { TraceEntry } from "../sandbox/wire";
import type { ToolDefinition } from "../tools/definition";
import type { ProbeMessage } from "./prompts";
import type { ProbedProtocol, ProbeExample, ProbeHow } from "./protocol";

/** What chain of probing (chain-of-probing.ts) takes, reports and calls back with. */

/** A tool to probe: its definition and the content hash its protocol will be keyed by. */
export interface ProbeTarget {
  definition: ToolDefinition;
  hash: string;
}

/** One direct, safe tool call (arguments validated, credentials injected by the caller). */
export interface DirectCallResult {
  ok: boolean;
  status?: number | undefined;
  body: unknown;
  error?: string | undefined;
}

/** A tool call made by a probing program, as the sandbox trace records it. */
export type ProgramCall = Pick<TraceEntry, "tool" | "arguments" | "ok" | "result" | "error">;

export interface ProgramRun {
  ok: boolean;
  answer?: unknown;
  error?: { message: string } | undefined;
  trace: readonly ProgramCall[];
}

export interface ProbeModelTurn {
  content: string;
  usage: TokenUsage;
  durationMs: number;
}

/** Why a model call is made: I_p (probe), I_s (select), or describing an undocumented tool. */
export type ProbePurpose = "probe" | "select" | "describe";

export type ProbeEvent =
  | { type: "tool_started"; tool: string; iteration: number }
  | {
      type: "direct_call";
      tool: string;
      iteration: number;
      arguments: Record<string, unknown>;
      ok: boolean;
      status?: number | undefined;
      error?: string | undefined;
    }
  | { type: "helpers_selected"; tool: string; iteration: number; helpers: string[]; by: "data_flow" | "model" }
  | { type: "program"; tool: string; iteration: number; sample: number; ok: boolean; error?: string | undefined }
  | { type: "probed"; tool: string; iteration: number; how: ProbeHow }
  | { type: "iteration_finished"; iteration: number; probed: number; remaining: number }
  | { type: "failed"; tool: string; error: string };

export interface ProbeDependencies {
  callTool(name: string, args: Record<string, unknown>): Promise<DirectCallResult>;
  /** Runs a program body that may call only `allowedTools`. */
  runProgram(program: string, allowedTools: string[]): Promise<ProgramRun>;
  /** A model call. Its errors are not caught: a model outage stops the job, which can resume. */
  chat(messages: ProbeMessage[], purpose: ProbePurpose, tool: string): Promise<ProbeModelTurn>;
  onProgress?(event: ProbeEvent): void;
  /** Called once per newly probed tool, before the next tool is probed: persist it here. */
  onProbed?(protocol: ProbedProtocol): void | Promise<void>;
  /** Called once per tool that is still unprobed after the last iteration. */
  onFailed?(tool: string, error: string): void | Promise<void>;
  now?(): Date;
}

export interface ProbeOptions {
  /** N: model samples per probe (§4.1). Default 3. */
  samples?: number;
  /** β: chain-of-probing iterations after the first, single-tool one (§4.2). Default 4; 0 disables the chain. */
  iterations?: number;
  /** Zero-token argument sets tried per probe. Default 3. */
  maxCandidates?: number;
  /** Probed tools shown to the model for helper selection, pre-selected by data flow. Default 6. */
  shortlistSize?: number;
  /** Helper tools the model may select. Default 3. */
  maxHelpers?: number;
  /** Try schema- and data-flow-filled calls before the model. Default true. */
  zeroToken?: boolean;
  /** Use the model when the zero-token path fails. Default true. */
  useModel?: boolean;
  /** Ask the model for a description of tools that have none and were probed without it. Default false. */
  describeUndocumented?: boolean;
}

/** What probing one tool has cost so far. */
export interface Cost {
  toolCalls: number;
  modelCalls: number;
  usage: TokenUsage;
}

export type ToolProbeResult =
  | {
      tool: string;
      status: "probed";
      how: ProbeHow;
      /** True when the protocol came from `already` and nothing was called. */
      resumed: boolean;
      /** 0 for the single-tool pass, 1…β for chain-of-probing iterations. */
      iteration: number;
      helpers: string[];
      toolCalls: number;
      modelCalls: number;
      usage: TokenUsage;
      protocol: ProbedProtocol;
    }
  | { tool: string; status: "failed"; error: string; toolCalls: number; modelCalls: number; usage: TokenUsage };

export interface ProbeReport {
  /** One entry per input tool, in input order. */
  results: ToolProbeResult[];
  probed: number;
  resumed: number;
  failed: number;
  /** Chain-of-probing iterations actually run. */
  iterations: number;
  toolCalls: number;
  modelCalls: number;
  usage: TokenUsage;
}

/** A response the tool gave, and how it was obtained: what a protocol documents. */
export interface Instance {
  example: ProbeExample;
  response: unknown;
  helpers: string[];
  how: ProbeHow;
  description?: string | undefined;
}

/** One probe of a tool (the paper's LLMProb): an instance, or why none was found. */
export type Attempt = { instance: Instance } | { error: string };
