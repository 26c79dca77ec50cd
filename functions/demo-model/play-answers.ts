/**
 * The demo model's answers to Play2Prompt's meta-prompts (functions/prompt-play/prompts.ts) and
 * the base model's solve step (functions/jobs/solve-with.ts): each prompt asks for one small JSON
 * object, recognised here by the form it asks for. The answers are plain rules over what the
 * prompt shows (the tool's parameters, the call's response), so a job runs to its end and shows
 * its beam; they improve a description only by stating its parameters, as the rules can.
 */

type Json = Record<string, unknown>;

/**
 * What the demo model "knows" about TMDB, as a language model would from the web: a few ids
 * behind the demo world's records, by the entity an id parameter names. Different explorations
 * take different ones.
 */
const KNOWN_IDS: Record<string, readonly number[]> = {
  person: [525, 51329, 31],
  movie: [27205, 155, 157336],
  tv: [1396],
};

interface ShownParameter {
  name: string;
  required: boolean;
  type: string;
}

/** The parameter list of `renderTool`: "- `name` (in, required, type): doc". */
function parametersOf(prompt: string): ShownParameter[] {
  return [...prompt.matchAll(/^- `([^`]+)` \((\w+), (required|optional), ([^)]*)\)/gm)].map((m) => ({
    name: m[1] ?? "",
    required: m[3] === "required",
    type: m[4] ?? "",
  }));
}

function valueFor(parameter: ShownParameter, exploration: number): unknown {
  const entity = /^(\w+?)_?id$/i.exec(parameter.name)?.[1]?.toLowerCase();
  const ids = entity === undefined ? undefined : KNOWN_IDS[entity];
  if (ids !== undefined) return ids[exploration % ids.length];
  const literal = /^"([^"]*)"/.exec(parameter.type)?.[1];
  if (literal !== undefined) return literal;
  if (/number|integer/.test(parameter.type)) return 1;
  if (/query|name|title/i.test(parameter.name)) return "Inception";
  return "en-US";
}

/** m1: one invocation; the earlier valid one's values kept, the required ones filled. */
function proposeInvocation(prompt: string): Json {
  const exploration = Number(/Exploration (\d+) of/.exec(prompt)?.[1] ?? "1") - 1;
  const earlier = jsonAfter(prompt, "An earlier valid invocation: ");
  const args: Json = {};
  for (const parameter of parametersOf(prompt))
    if (parameter.required) args[parameter.name] = valueFor(parameter, exploration + (earlier === undefined ? 0 : 1));
  return { arguments: args };
}

/** m2: valid when the call answered 2xx with something that is not an error or an empty list. */
function validateInvocation(prompt: string): Json {
  const status = Number(/Response \(HTTP (\d{3})\)/.exec(prompt)?.[1] ?? "200");
  const body = /Response[^:]*: (.*)/.exec(prompt)?.[1] ?? "";
  const empty = /"results":\[\]|"cast":\[\],"crew":\[\]/.test(body) || body.trim() === "";
  const valid = status >= 200 && status < 300 && !/"success":false|"status_code":/.test(body) && !empty;
  return { valid, reason: valid ? `HTTP ${status} with data (demo model rule)` : `HTTP ${status}, an error or nothing (demo model rule)` };
}

/** The arguments of the `Invocation:` line. */
function invocationOf(prompt: string): Json {
  return jsonAfter(prompt, "Invocation: ") ?? {};
}

/** m3: a request naming the tool's path and every argument, so the solve step can read them back. */
function sampleQuery(prompt: string): Json {
  const operation = /^Tool `[^`]+` — \w+ (\S+)/m.exec(prompt)?.[1] ?? "the tool";
  const args = Object.entries(invocationOf(prompt));
  const what = operation
    .replace(/\{[^}]+\}/g, "")
    .split("/")
    .filter(Boolean)
    .join(" ")
    .replaceAll("_", " ");
  return { query: `Look up ${what} for ${args.map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(", ") || "the defaults"}.` };
}

/** m4: the answer is what the tool returned, shortened. */
function sampleAnswer(prompt: string): Json {
  const output = /^Tool output: (.*)$/m.exec(prompt)?.[1] ?? "";
  return { answer: `The tool returned: ${output.slice(0, 300)}` };
}

/**
 * solve, the base model: the arguments the request names as `name=value`, but only those the
 * description names too. This is the demo model's stand-in for a model that follows the
 * description: a description that states its parameters solves more, which is what Play2Prompt
 * then finds.
 */
function solve(prompt: string): Json {
  const query = /^User query: (.*)$/m.exec(prompt)?.[1] ?? "";
  const description = /Its documentation:\n([\s\S]*?)\nDocumented argument types:/.exec(prompt)?.[1] ?? "";
  const named = new Set(description.match(/[\w$-]+/g) ?? []);
  const args: Json = {};
  for (const [, name, raw] of query.matchAll(/([\w$-]+)=([^,]+?)(?=,|\.$|$)/g)) {
    if (name === undefined || raw === undefined || !named.has(name)) continue;
    args[name] = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  }
  return { arguments: args };
}

/** m7: the description with its parameters stated, as the tool accepts them. */
function proposeDescription(prompt: string): Json {
  const current = /^Description: (.*)$/m.exec(prompt)?.[1] ?? "";
  const params = parametersOf(prompt).map((p) => `${p.name} (${p.required ? "required" : "optional"}, ${p.type})`);
  const stated = params.length === 0 ? "It takes no parameters." : `Parameters: ${params.join("; ")}.`;
  const base = current === "(none)" ? "" : current.replace(/\s*Parameters: .*$/, "");
  return { description: `${base} ${stated}`.trim().split(/\s+/).slice(0, 150).join(" ") };
}

function jsonAfter(prompt: string, label: string): Json | undefined {
  const at = prompt.indexOf(label);
  if (at < 0) return undefined;
  const line = prompt.slice(at + label.length).split("\n")[0] ?? "";
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** Answer forms, recognised by the JSON each prompt asks for, with the demo model's rule for each. */
const FORMS: readonly [string, (prompt: string) => Json][] = [
  ['{"arguments": {"<parameter name>": <value>}}', proposeInvocation],
  ['{"arguments": { ...the arguments to call the tool with... }}', solve],
  ['{"valid": true, "reason": "<one sentence>"}', validateInvocation],
  ['{"query": "<the user request>"}', sampleQuery],
  ['{"answer": "<the answer to the user>"}', sampleAnswer],
  ['{"score": 7, "reason": "<one sentence>"}', () => ({ score: 7, reason: "The demo model grades every working example 7." })],
  ['{"reflection": "<feedback>"}', () => ({ reflection: "Exercise another value of the identifier next time (demo model)." })],
  ['{"description": "<the new description>"}', proposeDescription],
  [
    '{"reflection": "<diagnosis and suggested changes>"}',
    () => ({ reflection: "State every parameter's name, type and whether it is required (demo model)." }),
  ],
];

/** The JSON answer to a Play2Prompt or solve prompt, or undefined when `prompt` is neither. */
export function playAnswer(prompt: string): string | undefined {
  const form = FORMS.find(([asked]) => prompt.includes(asked));
  return form === undefined ? undefined : JSON.stringify(form[1](prompt));
}
