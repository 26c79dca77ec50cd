/**
 * Probing coverage on the simulated worlds (the probing issue's figures), all in Node: no workerd,
 * the QuickJS sandbox and the simulated world run in this process.
 *
 * Worlds: RestBench TMDB (`restbench-tmdb/openapi.json`, imported with serverUrl
 * http://world.atc.test/tmdb, served at /tmdb) and the AutoTools lists food, weather, tmdb and game
 * (endpoints retargeted to http://world.atc.test/autotools/<domain> + the URL's path, as
 * scripts/seed-demo.mjs does; served at /autotools/<domain>). Each world's definitions lose their
 * response documentation first (responseSchema / responseExample), since probing is for
 * undocumented tools. By default the world is seeded with nothing (`seed: "none"`, as the unit
 * test): an identifier is accepted only once a response has handed it out, as a real API would.
 *
 * Three configurations of `probeTools` (functions/probing/chain-of-probing.ts), each on a fresh
 * world:
 *   zero-token     `useModel: false`: schema-filled calls, then data flow (chain of probing);
 *   + model        the product default: the model is asked only where the zero-token path fails;
 *   model-first    `zeroToken: false`: every tool through the model (I_p, then I_s + I_p with
 *                  helpers), the paper's LLMProb, so that tokens per probed tool can be set
 *                  against the paper's 1,032–6,012.
 * The model is test/helpers/scripted-model.ts behind the real `openai` SDK (createModelClient with
 * the scripted fetch), with generic rules that read only the prompt: the target tool's typed
 * signature, the helper tools' signatures and documented result types, and earlier errors. No rule
 * knows any particular tool. Token figures are the scripted endpoint's o200k_base counts of the
 * real prompts and of the scripted answers.
 *
 * Program tool calls are traced as functions/services/tool-gateway.ts traces them: a GET result longer
 * than 4,000 characters is kept clipped, as text, in runs; probe jobs keep whole results
 * (`fullResults`), because chain-of-probing's I_p path documents the traced result. `--clip`
 * reproduces the clipping, to see what it would cost (tools documented as "str").
 *
 * Run: node bench/run.mjs probe-coverage [--seed none|entry-examples] [--samples N] [--iterations N]
 *      [--worlds tmdb,food,weather,autotools-tmdb,game] [--clip] [--verbose] [--trace TOOL] [--json FILE]
 */
import { writeFileSync } from "node:fs";
import { probeTools, type ProbeDependencies, type ProbeOptions, type ProbeReport } from "../functions/probing/chain-of-probing";
import { createModelClient } from "../functions/llm/client";
import { resolveModelConfig } from "../functions/llm/config";
import { executeProgram } from "../functions/sandbox/index";
import { countTokens, createScriptedModel, type ScriptedChatRequest } from "../test/helpers/scripted-model";
import { int, machineLine, seconds } from "./lib/stats";
import { autotools, openProbeWorld, restbenchTmdb, sharedDataDir, type SeedRule, type WorldSpec } from "./lib/probe-world";

// ---------------------------------------------------------------------------------------------
// Reading the prompt: the typed tools API blocks the probing prompts contain.

interface ParamSig {
  name: string;
  required: boolean;
  /** TypeScript type text, e.g. `string`, `number`, `"a" | "b"`. */
  type: string;
  description: string;
  /** path, query, header or body, as the signature's doc comment says. */
  location: string;
}

interface ToolSig {
  name: string;
  description: string;
  /** `GET /person/{person_id}`. */
  operation: string;
  params: ParamSig[];
  /** The documented result type text (`unknown /* response not documented *\/` when none). */
  returns: string;
}

function codeBlocks(text: string): string[] {
  return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
}

/** Index of the bracket closing the one at `open`, skipping string literals. */
function closing(text: string, open: number): number {
  const pairs: Record<string, string> = { "{": "}", "(": ")", "[": "]", "<": ">" };
  const stack: string[] = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i] ?? "";
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? text.length : end + 1;
      continue;
    }
    if (pairs[c] !== undefined) stack.push(pairs[c]);
    else if (c === stack[stack.length - 1]) {
      stack.pop();
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/** `{ /** doc (query) *\/ name?: type; … }` → parameters. */
function parseArgs(text: string): ParamSig[] {
  const body = text.trim().replace(/^\{/, "").replace(/\}$/, "");
  const params: ParamSig[] = [];
  let i = 0;
  while (i < body.length) {
    while (i < body.length && /\s/.test(body[i] ?? "")) i++;
    if (i >= body.length) break;
    let description = "";
    let location = "";
    if (body.startsWith("/**", i)) {
      const end = body.indexOf("*/", i);
      const doc = body.slice(i + 3, end).trim();
      location = /\((path|query|header|body)\)$/.exec(doc)?.[1] ?? "";
      description = doc.replace(/\s*\((path|query|header|body)\)$/, "");
      i = end + 2;
      while (i < body.length && /\s/.test(body[i] ?? "")) i++;
    }
    const colon = body.indexOf(":", i);
    if (colon === -1) break;
    let name = body.slice(i, colon).trim();
    const required = !name.endsWith("?");
    name = name.replace(/\?$/, "");
    if (name.startsWith('"')) name = JSON.parse(name) as string;
    // The type runs to the `;` at depth 0.
    let j = colon + 1;
    let depth = 0;
    for (; j < body.length; j++) {
      const c = body[j];
      if (c === '"') {
        for (j++; j < body.length && body[j] !== '"'; j++) if (body[j] === "\\") j++;
      } else if (c === "{" || c === "(" || c === "[" || c === "<") depth++;
      else if (c === "}" || c === ")" || c === "]" || c === ">") depth--;
      else if (c === ";" && depth === 0) break;
    }
    params.push({ name, required, type: body.slice(colon + 1, j).trim(), description, location });
    i = j + 1;
  }
  return params;
}

/** The tool signatures of one `declare const tools: {…}` block. */
function parseSignatures(block: string): ToolSig[] {
  const sigs: ToolSig[] = [];
  let comment: string[] = [];
  for (const line of block.split("\n")) {
    const doc = /^\s*\*\s?(.*)$/.exec(line);
    if (/^\s*\/\*\*/.test(line)) {
      comment = [];
      continue;
    }
    if (/^\s*\*\//.test(line)) continue;
    if (doc !== null && !/^\s*\*\//.test(line)) {
      comment.push(doc[1] ?? "");
      continue;
    }
    const head = /^ {2}([A-Za-z_][A-Za-z0-9_]*)\(args: /.exec(line);
    if (head === null) continue;
    const open = line.indexOf("{", head[0].length - 1);
    const close = closing(line, open);
    const returns = /\): Promise<([\s\S]*)>;\s*$/.exec(line.slice(close + 1))?.[1] ?? "unknown";
    const operation = comment.find((c) => /^(GET|POST|PUT|PATCH|DELETE|HEAD) \//.test(c)) ?? "";
    sigs.push({ name: head[1] ?? "", description: comment[0] ?? "", operation, params: parseArgs(line.slice(open, close + 1)), returns });
    comment = [];
  }
  return sigs;
}

// ---------------------------------------------------------------------------------------------
// What a model would know: words, entities, plausible values.

function words(text: string): string[] {
  return text
    .replace(/\{[^}]*\}/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "")
    .map((w) => (w.length > 3 && w.endsWith("ies") ? `${w.slice(0, -3)}y` : w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w));
}

const ID_WORDS = new Set(["id", "ids", "key", "uuid", "slug", "code"]);

function isIdLike(name: string): boolean {
  const w = words(name);
  return ID_WORDS.has(w[w.length - 1] ?? "");
}

/** What an identifier parameter identifies: `person_id` → person; `/game/{id}` → game. */
function entityOf(param: string, operation: string): string | undefined {
  const own = words(param).filter((w) => !ID_WORDS.has(w));
  if (own.length > 0) return own.join("_");
  const segments = operation.replace(/^\S+\s+/, "").split("/");
  const at = segments.indexOf(`{${param}}`);
  const before = at > 0 ? segments[at - 1] : undefined;
  return before === undefined || before.startsWith("{") ? undefined : words(before).join("_");
}

/** General knowledge: a well-known instance of each kind of thing a search may be about. */
const TOPICS: [string, string][] = [
  ["person", "Tom Hanks"],
  ["people", "Tom Hanks"],
  ["actor", "Tom Hanks"],
  ["movie", "The Matrix"],
  ["film", "The Matrix"],
  ["tv", "Breaking Bad"],
  ["show", "Breaking Bad"],
  ["company", "Pixar"],
  ["collection", "Star Wars"],
  ["network", "HBO"],
  ["keyword", "time travel"],
  ["game", "The Legend of Zelda"],
  ["author", "Jason Schreier"],
  ["outlet", "IGN"],
  ["recipe", "pasta carbonara"],
  ["ingredient", "tomato"],
  ["menu", "burger"],
  ["product", "peanut butter"],
  ["wine", "merlot"],
  ["dish", "steak"],
  ["food", "pasta"],
  ["place", "London"],
  ["city", "London"],
  ["location", "London"],
];

function topicFor(text: string): string {
  const w = new Set(words(text));
  for (const [word, value] of TOPICS) if (w.has(word)) return value;
  return "example";
}

function literalUnion(type: string): unknown[] | undefined {
  const parts = type.split("|").map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !/^(".*"|-?\d+(\.\d+)?|true|false|null)$/.test(p))) return undefined;
  return parts.map((p) => JSON.parse(p) as unknown);
}

/** A value spelled out in a parameter's description: `e.g. merlot`, `("steak")`, `format YYYY-MM-DD`. */
function describedValue(description: string): string | undefined {
  const patterns = [
    /\(\s*["'`]([^"'`]{1,40})["'`]\s*\)/,
    /\b(?:choices|values|options) (?:are|is)\s*:?\s*["'`]?([A-Za-z0-9_.-]{1,40})/i,
    /\bone of(?: the following)?\s*:?\s*["'`]?([A-Za-z0-9_.-]{1,40})/i,
    /\be\.g\.?,?\s*:?\s*["'`]?([A-Za-z0-9_.\- ]{1,40}?)["'`]?(?=[,;)\n]|\.(?:\s|$)|$)/i,
    /\bsuch as\s+["'`]?([A-Za-z0-9_.\- ]{1,40}?)["'`]?(?=[,;)\n]|\.(?:\s|$)|$)/i,
  ];
  for (const p of patterns) {
    const found = p.exec(description)?.[1]?.trim();
    if (found) return found;
  }
  return undefined;
}

interface Valued {
  value: unknown;
  /** A guess the model has no reason to believe (an identifier it cannot know). */
  guess: boolean;
}

/** A plausible argument value from the parameter's name, type and description, as a model would write it. */
function plausibleValue(tool: ToolSig, param: ParamSig, variant: number): Valued {
  const type = param.type;
  const literals = literalUnion(type);
  if (literals !== undefined) {
    const usable = literals.filter((v) => v !== "" && v !== null);
    return { value: usable[Math.min(variant, usable.length - 1)] ?? literals[0], guess: false };
  }
  const n = words(param.name).join("_");
  const text = `${param.name} ${param.description}`.toLowerCase();
  const numeric = type === "number";
  const asType = (v: string | number): unknown => (numeric ? Number(v) : type === "string" || typeof v === "string" ? String(v) : v);
  if (isIdLike(param.name)) return { value: numeric ? 1 : "1", guess: true };
  if (/^(lat|latitude)$/.test(n)) return { value: asType(variant === 2 ? "51.5N" : "51.5074"), guess: false };
  if (/^(lon|lng|longitude)$/.test(n)) return { value: asType(variant === 2 ? "0.1W" : "-0.1278"), guess: false };
  if (/date/.test(n) || /yyyy-mm-dd/.test(text)) return { value: "2024-01-15", guess: false };
  if (/year/.test(n)) return { value: asType(2020), guess: false };
  if (/^(language|lang|locale)$/.test(n)) return { value: "en", guess: false };
  if (/^(region|country)$/.test(n)) return { value: "US", guess: false };
  if (/timezone|timazone/.test(n)) return { value: "UTC", guess: false };
  if (/^unit/.test(n)) return { value: "metric", guess: false };
  if (/^(page|season_number|episode_number|number)$/.test(n) || /_number$/.test(n)) return { value: asType(1), guess: false };
  if (/^(limit|count|size|per_page|max_result|number_of_result)$/.test(n)) return { value: asType(5), guess: false };
  if (/^(skip|offset)$/.test(n)) return { value: asType(0), guess: false };
  const described = describedValue(param.description);
  if (/^(query|q|criteria|keyword|search|text|term|name|title|prefix)$/.test(n) || /search|keyword|name of/.test(text)) {
    return { value: described ?? topicFor(`${tool.name} ${tool.operation} ${param.name} ${param.description}`), guess: false };
  }
  if (described !== undefined) return { value: asType(described), guess: false };
  if (type === "number") return { value: 1, guess: false };
  if (type === "boolean") return { value: variant !== 1, guess: false };
  if (type.endsWith("[]")) return { value: [topicFor(`${param.name} ${param.description}`)], guess: false };
  if (type.startsWith("{") || type.startsWith("Record")) return { value: {}, guess: false };
  return { value: topicFor(`${tool.name} ${tool.operation} ${param.name} ${param.description}`), guess: false };
}

function argsLiteral(entries: [string, string][]): string {
  if (entries.length === 0) return "{}";
  const key = (k: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : JSON.stringify(k));
  return `{ ${entries.map(([k, v]) => `${key(k)}: ${v}`).join(", ")} }`;
}

// ---------------------------------------------------------------------------------------------
// The two answers: I_p (query + program) and I_s (helper selection).

/** Helper-produced value: look the parameter up in earlier results, the way a model reads the documented result type. */
const PICK_FUNCTION = [
  "// Reads a value out of earlier results: the exact field first, then the entity's id.",
  "// A key `a>b` is field b inside the first field a; listsOnly[s]: source s is a list of the entity (its root id is another thing's).",
  "const pick = (sources: any[], keys: string[], listsOnly: boolean[]): any => {",
  "  const find = (root: any, key: string, onlyInLists: boolean, scalar: boolean): any => {",
  "    let level: any[] = [[root, false]];",
  "    for (let depth = 0; depth < 6 && level.length > 0; depth++) {",
  "      const next: any[] = [];",
  "      for (const [value, inList] of level) {",
  "        if (Array.isArray(value)) { for (const item of value.slice(0, 3)) next.push([item, true]); continue; }",
  "        if (value === null || typeof value !== 'object') continue;",
  "        const found = value[key];",
  "        const fits = scalar ? found !== undefined && found !== null && typeof found !== 'object' : found !== undefined && found !== null;",
  "        if (fits && (inList || !onlyInLists)) return found;",
  "        for (const child of Object.values(value)) next.push([child, inList]);",
  "      }",
  "      level = next;",
  "    }",
  "    return undefined;",
  "  };",
  "  for (const key of keys) {",
  "    for (let s = 0; s < sources.length; s++) {",
  "      const [outer, inner] = key.split('>');",
  "      const found = inner === undefined",
  "        ? find(sources[s], key, key === 'id' && listsOnly[s], true)",
  "        : (() => { const holder = find(sources[s], outer, false, false); return holder === undefined ? undefined : find(holder, inner, false, true); })();",
  "      if (found !== undefined) return found;",
  "    }",
  "  }",
  "  return undefined;",
  "};",
];

interface Producer {
  sig: ToolSig;
  variable: string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * How well a tool's documented result provides `param` (of a tool at `operation`): 4 the very
 * field, 3 a nested `networks: { id }`, 2 the entity's own tool with an `id`, 1 the entity's own
 * tool whose result type says nothing (`string`, `unknown`); 0 when it cannot, or needs the same
 * value itself.
 */
function produces(producer: ToolSig, param: ParamSig, operation: string): number {
  const entity = entityOf(param.name, operation);
  if (producer.params.some((p) => p.required && p.name === param.name && isIdLike(p.name) && entityOf(p.name, producer.operation) === entity)) return 0;
  if (new RegExp(`\\b${escapeRegExp(param.name)}\\??:`).test(producer.returns)) return 4;
  if (!isIdLike(param.name) || entity === undefined) return 0;
  const plain = entity.replace(/_/g, "");
  if (new RegExp(`\\b(${escapeRegExp(entity)}|${escapeRegExp(plain)})e?s?\\??: \\{[^{}]*?\\bid\\??:`).test(producer.returns)) return 3;
  const about = words(`${producer.name} ${producer.operation}`).join(" ").includes(entity.replace(/_/g, " "));
  if (about && /\bid\??:/.test(producer.returns)) return 2;
  // The entity's own tool with no usable result type: worth a try, its items most likely carry an id.
  if (about && /^(string|unknown\b)/.test(producer.returns.trim())) return 1;
  return 0;
}

/** Keys that would hold a value for `param`, in the order a model would try them. */
function keysFor(param: ParamSig, entity: string | undefined): string[] {
  const keys = [param.name];
  if (entity !== undefined && isIdLike(param.name)) {
    const plain = entity.replace(/_/g, "");
    keys.push(`${entity}_id`, `${entity.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase())}Id`, `${plain}s>id`, `${plain}es>id`, `${plain}>id`, "id");
  }
  return [...new Set(keys)];
}

/** Whether a producer's result is a list of `entity` (its path ends in it), so a bare root `id` is someone else's. */
function listsEntity(sig: ToolSig, entity: string | undefined): boolean {
  // Only a sub-resource (`/movie/{movie_id}/reviews`) has someone else's id at its root.
  if (entity === undefined || !sig.operation.includes("{")) return false;
  const last = sig.operation
    .replace(/^\S+\s+/, "")
    .split("/")
    .filter((s) => s !== "" && !s.startsWith("{"))
    .pop();
  return last !== undefined && words(last).join("_") === entity;
}

/** Arguments of one call: literal values, or values picked from producers' results. */
function callArguments(sig: ToolSig, producers: readonly Producer[], variant: number): [string, string][] {
  const entries: [string, string][] = [];
  for (const param of sig.params) {
    const entity = entityOf(param.name, sig.operation);
    const valued = plausibleValue(sig, param, variant);
    const sources = producers
      .map((p, order) => ({ p, score: produces(p.sig, param, sig.operation), order }))
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score || b.order - a.order)
      .map((x) => x.p);
    if (sources.length > 0 && (param.required || isIdLike(param.name))) {
      const lists = sources.map((s) => listsEntity(s.sig, entity));
      entries.push([param.name, `pick([${sources.map((s) => s.variable).join(", ")}], ${JSON.stringify(keysFor(param, entity))}, ${JSON.stringify(lists)})`]);
      continue;
    }
    if (!param.required) {
      // An optional header is the platform's business (a fixed header, a credential), not the query's.
      if (param.location === "header") continue;
      // Variant 0 passes the optional values a query is about; variant 1 only the required; variant 2 everything it can fill.
      if (variant === 1 || valued.guess) continue;
      if (variant === 0 && !/^(query|q|criteria|text|lat|lon|language|date)$/.test(param.name)) continue;
    }
    entries.push([param.name, JSON.stringify(valued.value)]);
  }
  return entries;
}

/** Helpers in call order: each after the helpers that can feed its own required identifiers. */
function callOrder(helpers: readonly ToolSig[]): ToolSig[] {
  const ordered: ToolSig[] = [];
  const pending = [...helpers];
  const unmet = (h: ToolSig, from: readonly ToolSig[]) =>
    h.params.filter((p) => p.required && isIdLike(p.name) && !from.some((o) => produces(o, p, h.operation) > 0)).length;
  while (pending.length > 0) {
    let at = pending.findIndex((h) => unmet(h, ordered) === 0);
    if (at === -1) at = pending.map((h) => unmet(h, ordered)).reduce((best, n, i, all) => (n < (all[best] ?? Infinity) ? i : best), 0);
    ordered.push(...pending.splice(at, 1));
  }
  return ordered;
}

function camel(name: string): string {
  const w = words(name).filter((x) => x !== "get");
  return (w.map((x, i) => (i === 0 ? x : `${x[0]?.toUpperCase() ?? ""}${x.slice(1)}`)).join("") || "result").replace(/^\d/, "_$&");
}

/** I_p: a query and a program calling the target (after the helpers, which feed it). */
function instanceAnswer(request: ScriptedChatRequest): string {
  const text = request.lastUserMessage;
  const target = /call `await tools\.([A-Za-z_][A-Za-z0-9_]*)\(/.exec(text)?.[1] ?? "";
  const blocks = codeBlocks(text);
  const targetSig = parseSignatures(blocks[0] ?? "").find((s) => s.name === target);
  if (targetSig === undefined) return "I could not find the tool's specification.";
  const withHelpers = text.includes("These tools have already been tested");
  const helpers = withHelpers ? parseSignatures(blocks[1] ?? "") : [];
  // Earlier failures shown in the prompt: try another way each time.
  const earlier = /Earlier tests of the tool failed[^\n]*\n((?:\d+\. [^\n]*\n?)+)/.exec(text)?.[1]?.trim().split("\n").length ?? 0;
  const variant = earlier % 3;

  const ordered = callOrder(helpers);
  const lines: string[] = [];
  const producers: Producer[] = [];
  if (ordered.length > 0) lines.push(...PICK_FUNCTION);
  for (const helper of ordered) {
    const variable = `${camel(helper.name)}Result`;
    lines.push(`const ${variable} = await tools.${helper.name}(${argsLiteral(callArguments(helper, producers, 0))});`);
    producers.push({ sig: helper, variable });
  }
  const args = callArguments(targetSig, producers, variant);
  lines.push(`const result = await tools.${target}(${argsLiteral(args)});`, "return result;");

  const about = (/^[^.#|]*/.exec(targetSig.description)?.[0] ?? "").trim() || targetSig.operation || target;
  const subject = args.find(([, v]) => v.startsWith('"'))?.[1];
  const query = `${about}${subject === undefined ? "" : ` for ${JSON.parse(subject) as string}`}`;
  const answer = [`Your query: "${query.replace(/"/g, "'")}"`, "Test program:", "```ts", ...lines, "```"];
  if (/The tool has no description/.test(text)) answer.push(`Tool description: Calls ${targetSig.operation || target} and returns its result.`);
  return answer.join("\n");
}

/** I_s: the listed tools whose documented results hold what the target's required parameters need. */
function selectionAnswer(request: ScriptedChatRequest): string {
  const text = request.lastUserMessage;
  const blocks = codeBlocks(text);
  const target = parseSignatures(blocks[0] ?? "")[0];
  const candidates = parseSignatures(blocks[1] ?? "");
  const max = Number(/\(at most (\d+)\)/.exec(text)?.[1] ?? 3);
  if (target === undefined || candidates.length === 0) return "Selected tools: ";
  const needed = target.params.filter((p) => p.required || isIdLike(p.name));
  // A producer that needs fewer identifiers itself is easier to call: among good ones, prefer it.
  const needs = (c: ToolSig) => c.params.filter((x) => x.required && isIdLike(x.name)).length;
  const best = (p: ParamSig, operation: string, exclude: readonly ToolSig[]): ToolSig | undefined =>
    candidates
      .map((c, order) => ({ c, s: exclude.includes(c) ? 0 : produces(c, p, operation), order }))
      .filter((x) => x.s > 0)
      .sort((a, b) => Number(b.s >= 3) - Number(a.s >= 3) || needs(a.c) - needs(b.c) || b.s - a.s || a.order - b.order)[0]?.c;
  const selected: ToolSig[] = [];
  for (const p of needed) {
    if (selected.some((c) => produces(c, p, target.operation) > 0)) continue;
    const producer = best(p, target.operation, selected);
    if (producer !== undefined) selected.push(producer);
  }
  // A selected helper that itself needs an identifier needs its own producer, called first.
  for (const helper of [...selected]) {
    for (const p of helper.params.filter((x) => x.required && isIdLike(x.name))) {
      if (selected.some((c) => c !== helper && produces(c, p, helper.operation) > 0)) continue;
      const producer = best(p, helper.operation, selected);
      if (producer !== undefined) selected.unshift(producer);
    }
  }
  const names = (selected.length > 0 ? selected : candidates.slice(0, 1)).slice(0, max).map((s) => s.name);
  return `Selected tools: ${names.join(", ")}`;
}

function describeAnswer(request: ScriptedChatRequest): string {
  const sig = parseSignatures(codeBlocks(request.lastUserMessage)[0] ?? "")[0];
  return `Tool description: Calls ${sig?.operation || sig?.name || "the tool"} and returns its result.`;
}

function scriptedProber() {
  return createScriptedModel({
    apiKey: "sk-scripted-probe",
    rules: [
      { name: "I_s", match: /Please select, from the tools above/, answer: (r) => ({ text: selectionAnswer(r) }) },
      { name: "I_p", match: /To test the tool, please first propose/, answer: (r) => ({ text: instanceAnswer(r) }) },
      { name: "describe", match: /Here is a tool \(API\) that has no description/, answer: (r) => ({ text: describeAnswer(r) }) },
    ],
  });
}

// ---------------------------------------------------------------------------------------------
// Runs

type Mode = "zero-token" | "+ model" | "model-first";

interface RunFigures {
  world: string;
  mode: Mode;
  tools: number;
  probed: number;
  direct: number;
  chain: number;
  /** Probed through a model answer (I_p alone, or with helpers). */
  byModel: number;
  byModelAlone: number;
  byModelChain: number;
  failed: number;
  failures: { tool: string; error: string }[];
  modelCalls: number;
  /** Tools the model was asked about at all. */
  modelTools: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  toolCalls: number;
  iterations: number;
  wallMs: number;
  programRuns: number;
  clippedResults: number;
  /** Model-probed tools documented as a bare string: their result reached probing clipped by the trace. */
  documentedAsString: number;
  httpRequests: number;
}

async function runOne(spec: WorldSpec, mode: Mode, seed: SeedRule, base: ProbeOptions, clipTraceResults: boolean): Promise<RunFigures> {
  const world = await openProbeWorld(spec, seed, { clipTraceResults });
  const scripted = scriptedProber();
  const config = resolveModelConfig({ MODEL_BASE_URL: "https://model.scripted.test/v1", MODEL_API_KEY: "sk-scripted-probe", MODEL_NAME: "scripted-prober" });
  if (!config.ok) throw new Error(config.message);
  const client = createModelClient(config.config, { fetch: scripted.fetch, maxRetries: 0 });
  // Which tools a model program probed: its "program ok" event comes right before "probed".
  const lastEvent = new Map<string, string>();
  const byModel = new Set<string>();
  const deps: ProbeDependencies = {
    onProgress(event) {
      if (traceTool !== undefined && "tool" in event && event.tool === traceTool && mode === "model-first")
        console.log(`   [trace ${mode}] ${JSON.stringify(event).slice(0, 600)}`);
      if (event.type === "program" && event.ok) lastEvent.set(event.tool, "program");
      else if (event.type === "direct_call") lastEvent.set(event.tool, "direct");
      else if (event.type === "probed" && lastEvent.get(event.tool) === "program") byModel.add(event.tool);
    },
    callTool: world.callTool,
    runProgram: world.runProgram,
    // functions/jobs/probe-job.ts deps.chat.
    async chat(messages, purpose, tool) {
      const answer = await client.chat({ messages, purpose: `probe:${purpose}`, temperature: 0.2 });
      if (traceTool !== undefined && tool === traceTool && mode === "model-first") {
        const offered = parseSignatures(codeBlocks(String(messages[messages.length - 1]?.content ?? ""))[1] ?? "").map(
          (sig) =>
            `${sig.name}(${sig.params
              .filter((p) => p.required)
              .map((p) => p.name)
              .join(", ")})`,
        );
        console.log(`   [trace ${mode}] ${purpose}${offered.length > 0 ? ` (offered: ${offered.join("; ")})` : ""} answer:\n${answer.content ?? ""}`);
      }
      return { content: answer.content ?? "", usage: answer.usage, durationMs: answer.durationMs };
    },
  };
  const options: ProbeOptions = { ...base, ...(mode === "zero-token" ? { useModel: false } : mode === "model-first" ? { zeroToken: false } : {}) };
  const started = performance.now();
  const report: ProbeReport = await probeTools(world.tools, new Map(), deps, options);
  const wallMs = performance.now() - started;
  const probed = report.results.filter((r) => r.status === "probed");
  const modelProbed = probed.filter((r) => byModel.has(r.tool));
  return {
    world: spec.name,
    mode,
    tools: world.tools.length,
    probed: report.probed,
    direct: probed.filter((r) => r.how === "direct").length,
    chain: probed.filter((r) => r.how === "helper_chain" && !modelProbed.includes(r)).length,
    byModel: modelProbed.length,
    byModelAlone: modelProbed.filter((r) => r.how === "model").length,
    byModelChain: modelProbed.filter((r) => r.how === "helper_chain").length,
    failed: report.failed,
    failures: report.results.flatMap((r) => (r.status === "failed" ? [{ tool: r.tool, error: r.error }] : [])),
    modelCalls: report.modelCalls,
    modelTools: report.results.filter((r) => r.modelCalls > 0).length,
    promptTokens: report.usage.promptTokens,
    completionTokens: report.usage.completionTokens,
    totalTokens: report.usage.totalTokens,
    toolCalls: report.toolCalls,
    iterations: report.iterations,
    wallMs,
    programRuns: world.stats.programRuns,
    clippedResults: world.stats.clippedResults,
    documentedAsString: modelProbed.filter((r) => r.protocol.responseSchema === "str").length,
    httpRequests: scripted.chatRequests.length,
  };
}

// ---------------------------------------------------------------------------------------------
// Output

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

const fixed = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : "–");

function rowsFor(runs: RunFigures[]): string[][] {
  return runs.map((r) => [
    r.mode,
    `${r.probed}/${r.tools}`,
    String(r.direct),
    String(r.chain),
    String(r.byModel),
    String(r.failed),
    String(r.modelCalls),
    fixed(r.modelCalls / r.tools, 2),
    r.modelTools === 0 ? "–" : fixed(r.modelCalls / r.modelTools, 2),
    int(r.totalTokens),
    r.probed === 0 ? "–" : int(r.totalTokens / r.probed),
    r.byModel === 0 ? "–" : int(r.totalTokens / r.byModel),
    String(r.toolCalls),
    seconds(r.wallMs),
  ]);
}

const HEADERS = [
  "mode",
  "probed",
  "alone",
  "chain",
  "by model",
  "failed",
  "model calls",
  "calls/tool",
  "calls/asked",
  "tokens",
  "tok/probed",
  "tok/by-model",
  "tool calls",
  "wall",
];

function sum(runs: RunFigures[], world: string, mode: Mode): RunFigures {
  const pick = runs.filter((r) => r.mode === mode);
  const total = (k: keyof RunFigures) => pick.reduce((s, r) => s + (r[k] as number), 0);
  return {
    world,
    mode,
    tools: total("tools"),
    probed: total("probed"),
    direct: total("direct"),
    chain: total("chain"),
    byModel: total("byModel"),
    byModelAlone: total("byModelAlone"),
    byModelChain: total("byModelChain"),
    failed: total("failed"),
    failures: pick.flatMap((r) => r.failures),
    modelCalls: total("modelCalls"),
    modelTools: total("modelTools"),
    promptTokens: total("promptTokens"),
    completionTokens: total("completionTokens"),
    totalTokens: total("totalTokens"),
    toolCalls: total("toolCalls"),
    iterations: Math.max(0, ...pick.map((r) => r.iterations)),
    wallMs: total("wallMs"),
    programRuns: total("programRuns"),
    clippedResults: total("clippedResults"),
    documentedAsString: total("documentedAsString"),
    httpRequests: total("httpRequests"),
  };
}

// ---------------------------------------------------------------------------------------------
// Main

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
}

const seed = (flag("seed") ?? "none") as SeedRule;
if (seed !== "none" && seed !== "entry-examples") throw new Error("--seed is none or entry-examples");
const base: ProbeOptions = {
  ...(flag("samples") === undefined ? {} : { samples: Number(flag("samples")) }),
  ...(flag("iterations") === undefined ? {} : { iterations: Number(flag("iterations")) }),
};
const verbose = process.argv.includes("--verbose");
// Probe jobs keep whole results in the trace (`fullResults`), so the bench does too; `--clip`
// shows what clipping (as runs do) would cost probing.
const clipTraceResults = process.argv.includes("--clip");
/** --trace TOOL: print the model's answers and the probing events for one tool (model-first run). */
const traceTool = flag("trace");
const dir = sharedDataDir();
const allWorlds: Record<string, WorldSpec> = {
  tmdb: restbenchTmdb(dir),
  food: autotools(dir, "food"),
  weather: autotools(dir, "weather"),
  "autotools-tmdb": autotools(dir, "tmdb"),
  game: autotools(dir, "game"),
};
const chosen = (flag("worlds") ?? Object.keys(allWorlds).join(",")).split(",");
const specs = chosen.map((k) => {
  const spec = allWorlds[k];
  if (spec === undefined) throw new Error(`unknown world ${k}; one of ${Object.keys(allWorlds).join(", ")}`);
  return spec;
});

console.log("probe-coverage: black-box probing of undocumented tools on the simulated worlds (Node, QuickJS sandbox, scripted model)");
console.log(machineLine());
console.log(
  `world seed: ${seed}; samples N = ${base.samples ?? 3}; chain iterations β = ${base.iterations ?? 4}; response documentation stripped from every definition`,
);

// Warm-up outside the timings: the QuickJS wasm compile and the tokenizer load happen once per process.
const warm = performance.now();
await executeProgram("return 1;", { tools: [], callTool: async () => undefined });
await countTokens("warm up");
console.log(`warm-up (QuickJS compile, o200k_base load): ${seconds(performance.now() - warm)}\n`);

const everything = performance.now();
const runs: RunFigures[] = [];
for (const spec of specs) {
  const worldRuns: RunFigures[] = [];
  for (const mode of ["zero-token", "+ model", "model-first"] as const) worldRuns.push(await runOne(spec, mode, seed, base, clipTraceResults));
  runs.push(...worldRuns);
  const tools = worldRuns[0]?.tools ?? 0;
  console.log(`== ${spec.name} (${spec.source}): ${tools} tools`);
  console.log(table(HEADERS, rowsFor(worldRuns)));
  for (const r of worldRuns) {
    if (r.byModel > 0)
      console.log(
        `   ${r.mode}: by model ${r.byModelAlone} alone (I_p) + ${r.byModelChain} with helpers (I_s + I_p); ${r.programRuns} programs run; prompt/completion tokens ${int(r.promptTokens)}/${int(r.completionTokens)}; ${r.iterations} chain iterations`,
      );
    if (r.clippedResults > 0 || r.documentedAsString > 0) {
      console.log(
        `   ${r.mode}: ${r.clippedResults} program tool results over 4,000 characters reached probing clipped (the tool gateway's trace); ${r.documentedAsString} model-probed tools documented as "str" because of it`,
      );
    }
    for (const f of r.failures.slice(0, verbose ? 100 : 5)) console.log(`   ${r.mode} FAILED ${f.tool}: ${f.error.replace(/\s+/g, " ").slice(0, 200)}`);
    if (!verbose && r.failures.length > 5) console.log(`   … ${r.failures.length - 5} more failures (--verbose lists them)`);
  }
  console.log("");
}

const overall = (["zero-token", "+ model", "model-first"] as const).map((mode) => sum(runs, "overall", mode));
console.log(`== overall (${specs.length} worlds, ${overall[0]?.tools ?? 0} tools)`);
console.log(table(HEADERS, rowsFor(overall)));
console.log(
  "\nalone = zero-token call from the schema; chain = data flow from probed tools (zero-token chain of probing); by model = a scripted-model program (I_p alone or with helpers);" +
    "\ncalls/tool = model calls per tool of the world; calls/asked = per tool the model was asked about; tok/probed = tokens per probed tool (the paper: 1,032–6,012 on average);" +
    "\ntok/by-model = tokens per tool probed by the model; wall = probeTools wall time;" +
    `\nclipped-as-str = tools documented as "str" because their traced result was clipped at 4,000 characters: ${overall.map((r) => `${r.mode} ${r.documentedAsString}`).join(", ")}${clipTraceResults ? " (--clip)" : ""}.`,
);
console.log(`\ntotal wall time: ${seconds(performance.now() - everything)}`);

const jsonFile = flag("json");
if (jsonFile !== undefined) {
  writeFileSync(jsonFile, JSON.stringify({ seed, options: base, machine: machineLine(), runs, overall }, null, 2));
  console.log(`wrote ${jsonFile}`);
}
