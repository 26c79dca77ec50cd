/** The scripted model's answers: I_p (query + program) and I_s (helper selection), and the tool description; generic rules that read only the prompt. */
import { createScriptedModel, type ScriptedChatRequest } from "../../../test/helpers/scripted-model";
import { argsLiteral, entityOf, isIdLike, plausibleValue, words } from "./plausible-values";
import { callOrder, keysFor, listsEntity, produces, type Producer } from "./producers";
import { codeBlocks, type ParamSig, parseSignatures, type ToolSig } from "./prompt-signatures";

/** Helper-produced value: look the parameter up in earlier results, the way a model reads the documented result type. */
export const PICK_FUNCTION = [
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

/** Arguments of one call: literal values, or values picked from producers' results. */
export function callArguments(sig: ToolSig, producers: readonly Producer[], variant: number): [string, string][] {
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

export function camel(name: string): string {
  const w = words(name).filter((x) => x !== "get");
  return (w.map((x, i) => (i === 0 ? x : `${x[0]?.toUpperCase() ?? ""}${x.slice(1)}`)).join("") || "result").replace(/^\d/, "_$&");
}

/** I_p: a query and a program calling the target (after the helpers, which feed it). */
export function instanceAnswer(request: ScriptedChatRequest): string {
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
export function selectionAnswer(request: ScriptedChatRequest): string {
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

export function describeAnswer(request: ScriptedChatRequest): string {
  const sig = parseSignatures(codeBlocks(request.lastUserMessage)[0] ?? "")[0];
  return `Tool description: Calls ${sig?.operation || sig?.name || "the tool"} and returns its result.`;
}

export function scriptedProber() {
  return createScriptedModel({
    apiKey: "sk-scripted-probe",
    rules: [
      { name: "I_s", match: /Please select, from the tools above/, answer: (r) => ({ text: selectionAnswer(r) }) },
      { name: "I_p", match: /To test the tool, please first propose/, answer: (r) => ({ text: instanceAnswer(r) }) },
      { name: "describe", match: /Here is a tool \(API\) that has no description/, answer: (r) => ({ text: describeAnswer(r) }) },
    ],
  });
}
