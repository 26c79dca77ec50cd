import type { ChatMessage } from "../llm/client";
import { invocationsMatch, parseModelJson, type Demonstration, type SolveOutcome } from "../prompt-play";
import type { ToolDefinition } from "../tools/definition";
import { argumentsType } from "../chain/typed-api";

/**
 * The base model B solving one demonstration with a candidate description (Play2Prompt §2.2):
 * it sees only that description and the tool's name, proposes an invocation for the query, the
 * invocation runs on the real tool, and the demonstration counts as solved when it works and
 * agrees with the demonstration's own invocation.
 */
export function solveMessages(tool: ToolDefinition, description: string, query: string): ChatMessage[] {
  const content = [
    `You are using the tool ${tool.name} (${tool.operation}). Its documentation:`,
    description,
    `Documented argument types: ${argumentsType(tool)}`,
    `User query: ${query}`,
    'Answer with JSON only: {"arguments": { ...the arguments to call the tool with... }}',
  ].join("\n");
  return [{ role: "user", content }];
}

export interface SolveDependencies {
  chat(messages: ChatMessage[]): Promise<{ content: string; usage: SolveOutcome["usage"] }>;
  call(args: Record<string, unknown>): Promise<{ ok: boolean; status?: number | undefined; body: unknown; error?: string | undefined }>;
}

/** Solve one demonstration with one description. */
export async function solveWith(tool: ToolDefinition, description: string, demonstration: Demonstration, deps: SolveDependencies): Promise<SolveOutcome> {
  const turn = await deps.chat(solveMessages(tool, description, demonstration.query));
  const parsed = parseModelJson(turn.content);
  const args = typeof parsed === "object" && parsed !== null && "arguments" in parsed ? (parsed as { arguments: unknown }).arguments : undefined;
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { ok: false, error: "the base model gave no invocation", usage: turn.usage, modelCalls: 1 };
  }
  const usedArgs = args as Record<string, unknown>;
  const outcome = await deps.call(usedArgs);
  if (!outcome.ok) {
    const body = JSON.stringify(outcome.body ?? null).slice(0, 500);
    return {
      ok: false,
      usedArgs,
      error: `${outcome.error ?? "the call failed"}${outcome.status === undefined ? "" : ` (HTTP ${outcome.status}: ${body})`}`,
      usage: turn.usage,
      modelCalls: 1,
    };
  }
  const matches = invocationsMatch(usedArgs, demonstration.args);
  return {
    ok: matches,
    usedArgs,
    output: outcome.body,
    ...(matches ? {} : { error: `the invocation ran but differs from the demonstration's ${JSON.stringify(demonstration.args)}` }),
    usage: turn.usage,
    modelCalls: 1,
  };
}
