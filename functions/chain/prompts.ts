import type { ToolDefinition } from "../tools/definition";
import { clipToTokens } from "./token-budget";
import { renderToolSignature, renderToolsApi, type ProtocolOverrides } from "./typed-api";

/**
 * The ATC paper's instructions (appendix A.7) for a TypeScript sandbox: I_c asks for one program
 * that calls a chain of tools; I_a asks which tool a failure belongs to; the revision prompt
 * (eq. 2) adds the earlier programs and errors and the attributed tool's full protocol.
 */

export interface EarlierAttempt {
  program: string;
  error: string;
  attributedTool: string | undefined;
}

const PROGRAM_CONTRACT = [
  "Write the body of an async TypeScript (or JavaScript) function. The tools are methods of the global `tools` object:",
  "call them as `await tools.<name>({ ...arguments })`; each returns the tool's parsed JSON response and throws on failure.",
  "There is no fetch, no import and no other I/O: only `tools`. `console.log` is allowed for debugging.",
  "End with `return <final answer>` (a string or a small JSON value that answers the question).",
].join("\n");

/** I_c: the system and user messages for the first program. */
export function generationMessages(task: string, tools: ToolDefinition[], overrides: Map<string, ProtocolOverrides>) {
  const system =
    "Here are some real-world tools (APIs). You need to answer my question by writing a program that calls a series of tools and returns the final answer. " +
    "The tools adhere to the RESTful format and are reached only through the typed `tools` object below.";
  const user = [
    "Here is the protocol of the given tools, as a typed API: what each tool does, its arguments, and the schema of its result.",
    "```ts",
    renderToolsApi(tools, overrides),
    "```",
    PROGRAM_CONTRACT,
    "Try to write a correct program and avoid errors such as reading fields the result schema does not have. " +
      "Put the name of each tool you call in a comment above the call, for attribution.",
    `Query: ${task}`,
    "Your output:\n```ts\n[Program]\n```",
  ].join("\n");
  return [
    { role: "system" as const, content: system },
    { role: "user" as const, content: user },
  ];
}

/** Eq. 2: the revision request, with earlier attempts and the attributed tool's full protocol. */
export function revisionMessages(
  task: string,
  tools: ToolDefinition[],
  overrides: Map<string, ProtocolOverrides>,
  attempts: EarlierAttempt[],
  attributed: ToolDefinition | undefined,
  feedbackTokenBudget: number,
) {
  const base = generationMessages(task, tools, overrides);
  const perAttempt = Math.max(200, Math.floor(feedbackTokenBudget / Math.max(1, attempts.length)));
  const history = attempts.map((attempt, i) => {
    const program = clipToTokens(attempt.program, Math.floor(perAttempt * 0.6));
    const error = clipToTokens(attempt.error, Math.floor(perAttempt * 0.4));
    return [
      `Attempt ${i + 1}${attempt.attributedTool === undefined ? "" : ` (the error was attributed to ${attempt.attributedTool})`}:`,
      "```ts",
      program.text,
      "```",
      "It failed with:",
      "=====",
      error.text,
      "=====",
    ].join("\n");
  });
  const protocol =
    attributed === undefined
      ? ""
      : `\nHere is the full protocol of ${attributed.name}, the tool the last error was attributed to:\n\`\`\`ts\n${renderToolSignature(attributed, overrides.get(attributed.name), true)}\n\`\`\``;
  const revision = {
    role: "user" as const,
    content: `${history.join("\n\n")}${protocol}\n\nRevise the program so that it runs without the error and answers the query. Output the whole corrected program.\nYour output:\n\`\`\`ts\n[Program]\n\`\`\``,
  };
  return [...base, revision];
}

/** I_a: ask the model which tool triggered the error. */
export function attributionMessages(task: string, tools: ToolDefinition[], program: string, error: string, feedbackTokenBudget: number) {
  const docs = tools.map((t) => `- ${t.name}: ${(t.summary ?? t.description).replace(/\s+/g, " ").slice(0, 200)}`).join("\n");
  const content = [
    "In this task, you are a code reviewer. You should read my code and the error message to identify the reason for my bug. Here is my code:",
    "```ts",
    clipToTokens(program, Math.floor(feedbackTokenBudget * 0.6)).text,
    "```",
    `Specifically, my code is to call the following APIs to solve the question: "${task}". Here are the details of the APIs.`,
    docs,
    "However, my code encounters the bug:",
    "=====",
    clipToTokens(error, Math.floor(feedbackTokenBudget * 0.4)).text,
    "=====",
    "Please help me to analyze my code and attribute the error message to the specific APIs callings. Note that you should select the tool name that triggers the error from the above tool list as your output.",
    "Your output: [the tool name]",
  ].join("\n");
  return [{ role: "user" as const, content }];
}
