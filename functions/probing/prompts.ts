import { renderToolSignature, type ProtocolOverrides } from "../chain/typed-api";
import type { ToolDefinition } from "../tools/definition";

/**
 * The probing instructions. I_p (appendix A.7) asks the model for a test query and a program
 * that calls the tool and shows its raw result; here the program is a TypeScript body over the
 * typed `tools` API (as in run-task), not Python over HTTP. I_s (§4.2: T̂ = M(t, H, I_s)) is not
 * printed in the paper; ours asks, in the same style, which probed tools can provide the failing
 * tool's missing arguments.
 */

/** A chat message as the model client takes it (system, user or assistant text). */
export interface ProbeMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** A probed tool offered to the model, with what probing learned about it. */
export interface HelperTool {
  definition: ToolDefinition;
  overrides: ProtocolOverrides;
}

const PROBING_SYSTEM =
  "In this task, you are a programming engineer. Your task is to test the provided APIs (tools), which are provided by the OpenAPI platform to access the web information, e.g., movie and music. " +
  "Specifically, you need to write a TypeScript program that passes the required arguments to call the tool, getting the execution result of the tool.";

function toolsBlock(defs: { definition: ToolDefinition; overrides?: ProtocolOverrides }[]): string {
  const body = defs.map(({ definition, overrides }) => renderToolSignature(definition, overrides ?? {}, true)).join("\n");
  return ["```ts", "declare const tools: {", body, "};", "```"].join("\n");
}

/** I_p: ask for a test query and a program that calls `target` (after `helpers`, when given). */
export function instanceDiscoveryMessages(target: ToolDefinition, helpers: readonly HelperTool[], earlierErrors: readonly string[]): ProbeMessage[] {
  const lines = [
    "Here is the specification of the tool to test, as a typed API: its HTTP operation, functional description and argument details.",
    toolsBlock([{ definition: target }]),
  ];
  if (helpers.length > 0) {
    lines.push(
      `Calling ${target.name} on its own failed: it probably needs an argument (such as an id) that only other tools return. ` +
        "These tools have already been tested, and their results are documented; call them first and pass the values it needs on to it:",
      toolsBlock(helpers.map((h) => ({ definition: h.definition, overrides: h.overrides }))),
    );
  }
  lines.push(
    "To test the tool, please first propose a clear and detailed query to specify the purpose of your test program, e.g., find a movie named The Matrix. " +
      `Then write the body of an async TypeScript function that finishes your query: call \`await tools.${target.name}({ ...arguments })\` with concrete argument values ` +
      `(nobody will give you input), and \`return\` the raw result of \`tools.${target.name}\` unchanged. ` +
      "There is no fetch, no import and no other I/O: only the `tools` object. Each tool returns its parsed JSON response and throws on failure.",
  );
  if (earlierErrors.length > 0) {
    lines.push(
      "Earlier tests of the tool failed; choose other argument values or another approach:",
      ...earlierErrors.slice(-3).map((e, i) => `${i + 1}. ${e.replace(/\s+/g, " ").slice(0, 400)}`),
    );
  }
  const undocumented = (target.description || target.summary || "").trim() === "";
  if (undocumented)
    lines.push("The tool has no description: after the program, also describe in one sentence what it does, on a line `Tool description: ...`.");
  lines.push(
    "Starting below, you should follow this format:",
    'Your query: "propose your query"',
    "Test program:",
    "```ts",
    "[Program]",
    "```",
    ...(undocumented ? ["Tool description: [one sentence]"] : []),
  );
  return [
    { role: "system", content: PROBING_SYSTEM },
    { role: "user", content: lines.join("\n") },
  ];
}

export interface InstanceAnswer {
  query?: string;
  program?: string;
  description?: string;
}

const FENCE = /```[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n([\s\S]*?)(?:```|$)/g;
const CODE_LANGUAGES = new Set(["", "ts", "typescript", "js", "javascript"]);

function unquote(text: string): string {
  return text
    .trim()
    .replace(/^["'“”`]+|["'“”`]+$/g, "")
    .trim();
}

/** Read "Your query:", the fenced program and an optional "Tool description:" from an I_p answer. */
export function parseInstanceAnswer(text: string): InstanceAnswer {
  const out: InstanceAnswer = {};
  const query = /Your query\s*:\s*(.+)/i.exec(text)?.[1];
  if (query !== undefined && unquote(query) !== "") out.query = unquote(query);
  let first: string | undefined;
  for (const match of text.matchAll(FENCE)) {
    const body = match[2] ?? "";
    if (CODE_LANGUAGES.has((match[1] ?? "").toLowerCase())) {
      first = body;
      break;
    }
    first ??= body;
  }
  if (first === undefined) {
    // No fence: whatever follows "Test program:" is the program, if anything does.
    const after = /Test (?:program|code)\s*:\s*\n([\s\S]+?)(?:\n\s*Tool description\s*:|$)/i.exec(text)?.[1];
    if (after?.includes("tools.")) first = after;
  }
  if (first !== undefined && first.trim() !== "") out.program = first.trim();
  const description = /Tool description\s*:\s*(.+)/i.exec(text)?.[1];
  if (description !== undefined && unquote(description) !== "" && !/^\[one sentence\]$/i.test(unquote(description))) out.description = unquote(description);
  return out;
}

/** I_s: ask which probed tools can provide the failing tool's missing arguments. */
export function helperSelectionMessages(target: ToolDefinition, lastError: string, candidates: readonly HelperTool[], maxHelpers: number): ProbeMessage[] {
  const content = [
    `In this task, you are a programming engineer testing APIs (tools). The tool ${target.name} fails when it is called on its own, probably because it needs an argument (such as an id) that only other tools return.`,
    "Here is the tool:",
    toolsBlock([{ definition: target }]),
    "Calling it failed with:",
    "=====",
    lastError.replace(/\s+/g, " ").slice(0, 600),
    "=====",
    "Here are tools that have already been tested, with the schema of their results:",
    toolsBlock(candidates.map((c) => ({ definition: c.definition, overrides: c.overrides }))),
    `Please select, from the tools above, the ones (at most ${maxHelpers}) whose results provide the arguments needed to call ${target.name}. Note that you should only select tool names from the list above.`,
    "Your output: Selected tools: [tool names, comma-separated]",
  ].join("\n");
  return [{ role: "user", content }];
}

/** The candidate names an I_s answer selects, in the order it names them. */
export function parseHelperSelection(text: string, candidates: readonly string[], maxHelpers: number): string[] {
  const found: { name: string; at: number }[] = [];
  for (const name of candidates) {
    const at = new RegExp(`(^|[^A-Za-z0-9_])${name}(?![A-Za-z0-9_])`).exec(text);
    if (at !== null) found.push({ name, at: at.index });
  }
  return found
    .sort((a, b) => a.at - b.at)
    .map((f) => f.name)
    .slice(0, maxHelpers);
}

/** Ask for a one-sentence description of an undocumented tool from its probed result. */
export function describeToolMessages(target: ToolDefinition, overrides: ProtocolOverrides): ProbeMessage[] {
  const content = [
    "Here is a tool (API) that has no description, with the schema of its result and a call that worked:",
    toolsBlock([{ definition: target, overrides }]),
    "Describe in one sentence what the tool does, for a programmer who will call it.",
    "Your output: Tool description: [one sentence]",
  ].join("\n");
  return [{ role: "user", content }];
}
