/**
 * The demo model's answer to the examples prompt (functions/prompt-play/example-requests.ts):
 * for each tool it is shown, three requests made by rule from the tool's own description and
 * name. They only restate the tool's words, as rules can; a real model rewords them as users
 * would. Recognised by the form the prompt hands the tools over in.
 */

const TOOLS_HEADER = "Tools (JSON data):\n";
/** The prompt's bound on a request (REQUEST_MAX_CHARS there); longer ones would be dropped. */
const REQUEST_CHARS = 160;

interface ShownTool {
  name: string;
  description: string;
}

/** The examples answer for `prompt`, or undefined when the prompt is not the examples prompt. */
export function exampleRequestsAnswer(prompt: string): string | undefined {
  const start = prompt.indexOf(TOOLS_HEADER);
  if (start < 0) return undefined;
  let shown: unknown;
  try {
    shown = JSON.parse(prompt.slice(start + TOOLS_HEADER.length));
  } catch {
    return undefined;
  }
  if (!Array.isArray(shown)) return undefined;
  const tools = shown.filter(isShownTool).map((tool) => ({ name: tool.name, requests: requestsFor(tool) }));
  return JSON.stringify({ tools });
}

function isShownTool(value: unknown): value is ShownTool {
  const tool = value as Partial<ShownTool> | null;
  return typeof tool?.name === "string" && typeof tool.description === "string";
}

/** Three requests: the description's first sentence, it asked as a question, and the name's words. */
function requestsFor(tool: ShownTool): string[] {
  const sentence = firstSentence(tool.description) || nameWords(tool.name);
  const lowered = sentence.charAt(0).toLowerCase() + sentence.slice(1);
  return [sentence, `Can you ${lowered}?`, `Help me with ${nameWords(tool.name)}`].map((r) => r.slice(0, REQUEST_CHARS));
}

function firstSentence(text: string): string {
  return (text.split(/(?<=[.!?])\s|\n/)[0] ?? "").trim().replace(/[.!?]+$/, "");
}

/** `getMovieCredits` → "get movie credits"; `weather_today` → "weather today". */
function nameWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_\-.]+/g, " ")
    .trim()
    .toLowerCase();
}
