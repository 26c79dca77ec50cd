import type { ChatMessage } from "../llm/client";
import { schemaToTs } from "../chain/typed-api";
import type { ToolDefinition } from "../tools/definition";
import type { ToolArguments } from "./types";

/**
 * The meta-prompts m1–m8 of Algorithms 1 and 2. The paper names them but does not print them, so
 * each one follows the conditioning the algorithm gives it (which of i, o, x, y, u, I, a, r it
 * sees). Every prompt asks for one small JSON object, read by `model-output.ts`. Long values
 * (tool outputs, errors) are clipped: small optimisation models, which the paper uses
 * (LLaMA-3-8B), lose the task in long prompts.
 */

const RESULT_CHARS = 1_500;
const ERROR_CHARS = 600;

/** Text shortened to `max` characters, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Any value as compact JSON text (strings as they are), clipped. */
export function showValue(value: unknown, max: number): string {
  if (typeof value === "string") return clip(value, max);
  try {
    return clip(JSON.stringify(value) ?? String(value), max);
  } catch {
    return clip(String(value), max);
  }
}

function json(example: string): string {
  return `Answer with one JSON object and nothing else, exactly in this form:\n${example}`;
}

/**
 * The tool as the optimisation model sees it: description u and meta-information I. The
 * parameter list is labelled as possibly wrong, because finding out where it is wrong is the
 * point of playing with the tool (the paper's Figure 2: documented `start_date`/`end_date`,
 * real `from`/`to`).
 */
export function renderTool(tool: ToolDefinition, description: string): string {
  const params = tool.parameters.map((p) => {
    const doc = p.description === undefined || p.description === "" ? "" : `: ${clip(p.description.replace(/\s+/g, " "), 300)}`;
    return `- \`${p.name}\` (${p.in}, ${p.required ? "required" : "optional"}, ${schemaToTs(p.schema)})${doc}`;
  });
  return [
    `Tool \`${tool.name}\` — ${tool.operation}`,
    `Description: ${description === "" ? "(none)" : description}`,
    "Parameters, as documented (the documentation may be incomplete, outdated or wrong):",
    ...(params.length === 0 ? ["(no documented parameters)"] : params),
  ].join("\n");
}

const PLAYER =
  "You are exploring a software tool by calling it, to learn how it really behaves. Its documentation may be incomplete, outdated or wrong: the tool's actual responses and error messages are the ground truth.";

export interface RejectedInvocation {
  args?: ToolArguments | undefined;
  reason: string;
}

/** m1: sample a candidate invocation i, from the parent's i_t and reflection a_t and this round's rejections. */
export function proposeInvocationMessages(input: {
  tool: ToolDefinition;
  description: string;
  parentArgs?: ToolArguments | undefined;
  reflection?: string | undefined;
  rejected: readonly RejectedInvocation[];
  exploration: { index: number; of: number };
}): ChatMessage[] {
  const parts = [renderTool(input.tool, input.description)];
  if (input.parentArgs !== undefined) parts.push(`An earlier valid invocation: ${showValue(input.parentArgs, 800)}`);
  if (input.reflection !== undefined && input.reflection !== "")
    parts.push(`Feedback on the earlier demonstration, to apply now:\n${clip(input.reflection, 1_200)}`);
  if (input.rejected.length > 0) {
    parts.push(
      "Invocations already tried in this round and rejected (learn from the error messages; they override the documentation):",
      ...input.rejected.map((r, i) => `${i + 1}. ${r.args === undefined ? "(unreadable answer)" : showValue(r.args, 400)} → ${clip(r.reason, ERROR_CHARS)}`),
    );
  }
  parts.push(
    `Exploration ${input.exploration.index + 1} of ${input.exploration.of}: propose ONE invocation of this tool that a real user could need${input.parentArgs === undefined ? "" : ", exercising the tool differently from the earlier one"}. Use concrete, plausible values, never placeholders.`,
    json('{"arguments": {"<parameter name>": <value>}}'),
  );
  return [
    { role: "system", content: PLAYER },
    { role: "user", content: parts.join("\n\n") },
  ];
}

/** m2: verify c, whether output o is a valid result of invocation i given u and I. */
export function validateInvocationMessages(input: {
  tool: ToolDefinition;
  description: string;
  args: ToolArguments;
  status?: number | undefined;
  body: unknown;
}): ChatMessage[] {
  return [
    { role: "system", content: "You check whether a tool call worked. Be strict: a demonstration will be built on it." },
    {
      role: "user",
      content: [
        renderTool(input.tool, input.description),
        `Invocation: ${showValue(input.args, 800)}`,
        `Response${input.status === undefined ? "" : ` (HTTP ${input.status})`}: ${showValue(input.body, RESULT_CHARS)}`,
        "Is this a valid, useful output of this invocation for what the tool is for? Invalid: an error message (even with a success status), an empty result caused by bad or made-up arguments, or a response about something other than what was asked.",
        json('{"valid": true, "reason": "<one sentence>"}'),
      ].join("\n\n"),
    },
  ];
}

export interface EarlierSample {
  query: string;
  answer: string;
  score: number;
  reflection: string;
}

/** m3: sample a user query x that this invocation and output answer (later rollout steps see the last feedback). */
export function sampleQueryMessages(input: {
  tool: ToolDefinition;
  description: string;
  args: ToolArguments;
  result: string;
  earlier?: EarlierSample | undefined;
}): ChatMessage[] {
  const parts = [renderTool(input.tool, input.description), `Invocation: ${showValue(input.args, 800)}`, `Tool output: ${clip(input.result, RESULT_CHARS)}`];
  if (input.earlier !== undefined) {
    parts.push(
      `An earlier attempt scored ${input.earlier.score}/10.\nQuery: ${input.earlier.query}\nAnswer: ${clip(input.earlier.answer, 600)}\nFeedback: ${clip(input.earlier.reflection, 1_000)}\nWrite a better query that applies the feedback.`,
    );
  }
  parts.push(
    "Write a realistic request a user could send to an assistant that is answered by exactly this tool call: it must lead to these arguments, need only this tool, and be answerable from the output. Write it as a user would, without parameter names or JSON.",
    json('{"query": "<the user request>"}'),
  );
  return [
    { role: "system", content: "You write realistic examples of how a tool is used, for an assistant that will learn from them." },
    { role: "user", content: parts.join("\n\n") },
  ];
}

/** m4: sample the answer y to query x from the invocation and its output. */
export function sampleAnswerMessages(input: { tool: ToolDefinition; description: string; args: ToolArguments; result: string; query: string }): ChatMessage[] {
  return [
    { role: "system", content: "You are an assistant that called a tool to answer a user. Answer only from the tool output." },
    {
      role: "user",
      content: [
        renderTool(input.tool, input.description),
        `User request: ${input.query}`,
        `Invocation: ${showValue(input.args, 800)}`,
        `Tool output: ${clip(input.result, RESULT_CHARS)}`,
        "Write the final answer to the user, using only facts in the tool output; concise and complete.",
        json('{"answer": "<the answer to the user>"}'),
      ].join("\n\n"),
    },
  ];
}

/** m5: judge the demonstration's quality r (1–10), from y, i, o, x, u and I. */
export function scoreDemonstrationMessages(input: {
  tool: ToolDefinition;
  description: string;
  args: ToolArguments;
  result: string;
  query: string;
  answer: string;
}): ChatMessage[] {
  return [
    { role: "system", content: "You grade examples of tool use that will teach an assistant how to use the tool. Be strict and consistent." },
    {
      role: "user",
      content: [
        renderTool(input.tool, input.description),
        `User request: ${input.query}`,
        `Invocation: ${showValue(input.args, 800)}`,
        `Tool output: ${clip(input.result, RESULT_CHARS)}`,
        `Answer: ${clip(input.answer, 1_000)}`,
        "Rate the example from 1 (useless) to 10 (perfect): Does the request need exactly this tool call and no other tool? Do the arguments follow from the request? Is the answer correct and complete given the output? Would it teach an assistant how to use the tool?",
        json('{"score": 7, "reason": "<one sentence>"}'),
      ].join("\n\n"),
    },
  ];
}

/** m6: the self-reflection a, what to change in the next demonstration. */
export function reflectDemonstrationMessages(input: {
  tool: ToolDefinition;
  description: string;
  args: ToolArguments;
  result: string;
  query: string;
  answer: string;
  score: number;
  reason?: string | undefined;
}): ChatMessage[] {
  return [
    { role: "system", content: "You give feedback that improves examples of tool use." },
    {
      role: "user",
      content: [
        renderTool(input.tool, input.description),
        `User request: ${input.query}`,
        `Invocation: ${showValue(input.args, 800)}`,
        `Tool output: ${clip(input.result, RESULT_CHARS)}`,
        `Answer: ${clip(input.answer, 1_000)}`,
        `Grade: ${input.score}/10${input.reason === undefined ? "" : ` — ${clip(input.reason, 400)}`}`,
        "What is wrong or weak in the request, the invocation or the answer, and what should the next example do differently (for instance another parameter or value worth exercising)? Be specific and brief.",
        json('{"reflection": "<feedback>"}'),
      ].join("\n\n"),
    },
  ];
}

/** m7: sample a new description u_{t+1} from u_t, applying the reflection a_t, with I. */
export function proposeDescriptionMessages(input: {
  tool: ToolDefinition;
  description: string;
  reflection: string;
  exploration: { index: number; of: number };
}): ChatMessage[] {
  return [
    {
      role: "system",
      content: "You improve tool descriptions so that an assistant reading only the description and the parameter list calls the tool correctly.",
    },
    {
      role: "user",
      content: [
        renderTool(input.tool, input.description),
        `Feedback from watching an assistant use the tool with this description:\n${clip(input.reflection, 2_000)}`,
        `Variant ${input.exploration.index + 1} of ${input.exploration.of}: write a new description of the tool that applies the feedback. Keep what already works. State parameter names, formats and which are required exactly as the tool really accepts them, even where the documented parameter list disagrees. At most 150 words.`,
        json('{"description": "<the new description>"}'),
      ].join("\n\n"),
    },
  ];
}

export interface SolveReport {
  query: string;
  expectedArgs: ToolArguments;
  usedArgs?: ToolArguments | undefined;
  solved: boolean;
  error?: string | undefined;
  output?: unknown;
}

/**
 * m8: the self-reflection a_{t+1} from u_{t+1}, r_{t+1}, I and the base model's queries,
 * outputs and errors {x_j, o_j, e_j}. The demonstration's own invocation is shown too: it ran
 * and was judged valid, so it is what the description has to teach.
 */
export function reflectDescriptionMessages(input: {
  tool: ToolDefinition;
  description: string;
  score: number;
  reports: readonly SolveReport[];
}): ChatMessage[] {
  const cases = input.reports.map((r, i) =>
    [
      `${i + 1}. ${r.solved ? "SOLVED" : "FAILED"} — request: ${clip(r.query, 400)}`,
      `   assistant called: ${r.usedArgs === undefined ? "(no valid invocation)" : showValue(r.usedArgs, 400)}`,
      `   a working invocation: ${showValue(r.expectedArgs, 400)}`,
      ...(r.error === undefined ? [] : [`   error: ${clip(r.error, ERROR_CHARS)}`]),
      ...(r.output === undefined ? [] : [`   output: ${showValue(r.output, 400)}`]),
    ].join("\n"),
  );
  return [
    { role: "system", content: "You diagnose why an assistant misuses a tool and say how its description must change." },
    {
      role: "user",
      content: [
        renderTool(input.tool, input.description),
        `With this description the assistant solved ${Math.round(input.score * 100)}% of these requests:`,
        cases.join("\n"),
        "Which parts of the description (or its silence) caused the mistakes? Trust the tool's error messages over the documented parameter list. Suggest specific changes to the description: parameter names, formats, required or optional, what the tool is for.",
        json('{"reflection": "<diagnosis and suggested changes>"}'),
      ].join("\n\n"),
    },
  ];
}
