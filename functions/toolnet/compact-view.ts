import type { ToolDefinition, ToolParameter } from "../tools/definition";
import { compactSchema, cutAtSentence, type SchemaLimits, type SchemaRule, type SchemaWalk } from "./compact-schema";
import type { OpenAiTool } from "./openai-tools";
import { restatesName } from "./restating-text";

/**
 * What the model is shown for a tool: derived from its full definition by named rules, so that a
 * routing answer stays small. The full definition stays in the registry (`GET /v1/tools/{name}`)
 * and is what every call is validated against; a compact view only ever leaves out detail, it
 * never drops a required parameter or changes a type, so a call built from it validates as one
 * built from the full definition would.
 */

export type CompactionRule =
  /** The tool's description is cut at a sentence boundary. */
  | "description-cut-at-sentence"
  /** Optional parameters' descriptions are cut (shorter limit, applied first). */
  | "optional-descriptions-trimmed"
  /** Required parameters' descriptions are cut (longer limit). */
  | "required-descriptions-trimmed"
  /** Only in the required-only view: optional parameters are not shown at all. */
  | "optional-parameters-left-out"
  /**
   * Progressive disclosure for parameter-heavy tools: of more optional parameters than the limit,
   * the first ones (documented ones first, then the definition's order) are shown in full, the
   * rest only by name at the end of the tool's description. The shown schema does not forbid them
   * (no `additionalProperties: false`), so a call may still use them; it is validated against the
   * full definition like any other.
   */
  | "optional-parameters-named-only"
  /**
   * An optional parameter's `default` is not shown: it is what the API uses when the argument is
   * absent (OpenAPI), so a model that leaves the argument out gets it anyway.
   */
  | "optional-defaults-dropped"
  /**
   * A required parameter's `default` longer than the limit (JSON text) is not shown: the
   * argument must be sent anyway, so it is only an example there (long URLs, tokens, sentences).
   */
  | "long-defaults-dropped"
  /**
   * A tool without parameters has no `parameters` object, and an empty `required` list is not
   * sent (chat completions: omitting `parameters` defines a function with no arguments).
   */
  | "empty-parameters-omitted"
  /**
   * A required parameter's `default` is not shown when the parameter is shown with a
   * description: the API never applies it (the argument is always sent), so it is only an
   * example, and examples are not shown ("annotations-dropped"); shown as a default, it invites
   * the model to send the sample value instead of the user's. A parameter shown without a
   * description keeps a short one ("long-defaults-dropped"): it is then the one hint at the
   * value's form ("DD-MM-YYYY").
   */
  | "described-defaults-dropped"
  /**
   * A tool's or a parameter's description that only restates its name ("User ID" for `user_id`,
   * "Get genres" for `get_genres`, "Page number" for a numeric `page`) is not shown: the name is
   * shown anyway (restating-text.ts).
   */
  | "restating-descriptions-dropped"
  | SchemaRule;

/** Rules a benchmark may leave out, to measure what each one changes (README: answer-tokens). */
export type OptionalRule = "restating-descriptions-dropped" | "described-defaults-dropped";

export interface ViewOptions {
  /** Rules not applied (benchmarks only; the stored views use every rule). */
  readonly without?: readonly OptionalRule[];
}

export interface CompactionLimits extends SchemaLimits {
  readonly descriptionChars: number;
  readonly requiredDescriptionChars: number;
  readonly optionalDescriptionChars: number;
  /** Characters all optional parameters' descriptions of one tool share; later ones get none. */
  readonly optionalDescriptionTotal: number;
  /** Longest `default` (JSON text) shown on a required parameter shown without a description. */
  readonly defaultChars: number;
  /** Optional parameters shown with their schema; any more are named only. */
  readonly optionalParametersShown: number;
}

/** The limits of the stored compact view (chosen on the StableToolBench corpus; see the README). */
export const COMPACT_LIMITS: CompactionLimits = {
  descriptionChars: 100,
  requiredDescriptionChars: 60,
  optionalDescriptionChars: 40,
  optionalDescriptionTotal: 60,
  defaultChars: 24,
  optionalParametersShown: 3,
  enumValues: 12,
  enumExamples: 4,
  depth: 3,
  nestedDescriptionChars: 60,
};

/** The limits of the required-only view: the least a model needs to make a valid call. */
export const REQUIRED_ONLY_LIMITS: CompactionLimits = {
  descriptionChars: 100,
  requiredDescriptionChars: 60,
  optionalDescriptionChars: 0,
  optionalDescriptionTotal: 0,
  defaultChars: 24,
  optionalParametersShown: 0,
  enumValues: 8,
  enumExamples: 3,
  depth: 2,
  nestedDescriptionChars: 40,
};

/** A description cut shorter than this says too little to be worth its tokens. */
const MIN_DESCRIPTION_CHARS = 16;

export interface CompactView {
  tool: OpenAiTool;
  /** The rules that changed something, in a fixed order. */
  rules: CompactionRule[];
}

/** A parameter the validator treats as required (OpenAPI: path parameters always are). */
export function isRequired(parameter: ToolParameter): boolean {
  return parameter.required || parameter.in === "path";
}

/** The text a tool is described by: its description, else its summary, else its operation (blank ones do not count). */
export function toolText(def: ToolDefinition): string {
  const clean = (text: string | undefined): string => (text ?? "").replace(/\s+/g, " ").trim();
  return clean(def.description) || clean(def.summary) || clean(def.operation);
}

/** The compact view of a tool: every parameter, descriptions and schemas cut by the rules. */
export function compactView(def: ToolDefinition, limits: CompactionLimits = COMPACT_LIMITS, options: ViewOptions = {}): CompactView {
  return view(def, limits, false, options);
}

/**
 * The smallest useful view: only the parameters a call must have, shortest descriptions. Shown
 * when a tool's compact view does not fit the budget left; its size is what a tool needs at least.
 */
export function requiredOnlyView(def: ToolDefinition, limits: CompactionLimits = REQUIRED_ONLY_LIMITS, options: ViewOptions = {}): CompactView {
  return view(def, limits, true, options);
}

function view(def: ToolDefinition, limits: CompactionLimits, requiredOnly: boolean, options: ViewOptions): CompactView {
  const rules = new Set<CompactionRule>();
  const applies = (rule: OptionalRule): boolean => !(options.without ?? []).includes(rule);
  const restating = (text: string, name: string, type?: unknown): boolean =>
    applies("restating-descriptions-dropped") && restatesName(text, name, typeWords(type));
  const walk: SchemaWalk = { limits, rules: rules as Set<SchemaRule>, shown: new Map() };
  const text = toolText(def);
  let description = cutAtSentence(text, limits.descriptionChars);
  if (restating(text, def.name)) {
    description = "";
    rules.add("restating-descriptions-dropped");
  } else if (description !== text) rules.add("description-cut-at-sentence");

  const compacted = new Map<string, unknown>();
  const required = new Set<string>();
  let optionalLeft = limits.optionalDescriptionTotal;
  const neededNames = new Set(def.parameters.filter(isRequired).map((p) => p.name));
  const documented = (p: ToolParameter): boolean => {
    const own = p.description ?? (typeof p.schema.description === "string" ? p.schema.description : "");
    return own !== "" && !restating(own, p.name, p.schema.type);
  };
  const namedOnly = requiredOnly ? new Set<string>() : optionalNamedOnly(def, neededNames, limits.optionalParametersShown, documented);
  // Required parameters first, so a repeated sub-schema is shown in full where it is needed.
  const ordered = [...def.parameters.filter(isRequired), ...def.parameters.filter((p) => !isRequired(p))];
  for (const parameter of ordered) {
    const needed = neededNames.has(parameter.name);
    if (requiredOnly && !needed) {
      rules.add("optional-parameters-left-out");
      continue;
    }
    if (namedOnly.has(parameter.name)) continue;
    if (compacted.has(parameter.name)) continue; // same name in two places: one property
    const shown: Record<string, unknown> = { ...parameter.schema };
    const own = parameter.description ?? (typeof shown.description === "string" ? shown.description : undefined);
    if (own !== undefined && restating(own, parameter.name, shown.type)) {
      delete shown.description;
      rules.add("restating-descriptions-dropped");
    } else if (own !== undefined) {
      const max = needed ? limits.requiredDescriptionChars : Math.min(limits.optionalDescriptionChars, optionalLeft);
      const cut = max >= MIN_DESCRIPTION_CHARS ? cutAtSentence(own, max) : "";
      if (!needed) optionalLeft -= cut.length;
      if (cut !== own.replace(/\s+/g, " ").trim()) rules.add(needed ? "required-descriptions-trimmed" : "optional-descriptions-trimmed");
      if (cut === "") delete shown.description;
      else shown.description = cut;
    }
    if (shown.default !== undefined && !needed) {
      delete shown.default;
      rules.add("optional-defaults-dropped");
    } else if (shown.default !== undefined && shown.description !== undefined && applies("described-defaults-dropped")) {
      delete shown.default;
      rules.add("described-defaults-dropped");
    } else if (shown.default !== undefined && JSON.stringify(shown.default).length > limits.defaultChars) {
      delete shown.default;
      rules.add("long-defaults-dropped");
    }
    compacted.set(parameter.name, compactSchema(shown, parameter.name, walk));
    if (needed) required.add(parameter.name);
  }
  // Shown in the definition's order, whatever order they were compacted in.
  const properties = Object.fromEntries(def.parameters.flatMap((p) => (compacted.has(p.name) ? [[p.name, compacted.get(p.name)]] : [])));
  if (Object.keys(properties).length === 0 || required.size === 0) rules.add("empty-parameters-omitted");
  let shownDescription = description;
  if (namedOnly.size > 0) {
    rules.add("optional-parameters-named-only");
    shownDescription = `${description === "" ? "" : `${description} `}${NAMED_ONLY_NOTE} ${[...namedOnly].join(", ")}.`;
  }
  return { tool: compactFunctionTool(def.name, shownDescription, properties, [...required]), rules: RULE_ORDER.filter((rule) => rules.has(rule)) };
}

/** The words a parameter's type says already: its JSON type, and "number" for an integer. */
function typeWords(type: unknown): string[] {
  if (typeof type !== "string") return [];
  return type === "integer" ? [type, "number"] : [type];
}

/** How the description names the optional parameters shown without a schema (rule "optional-parameters-named-only"). */
export const NAMED_ONLY_NOTE = "More optional parameters:";

/**
 * The optional parameters named only, in the definition's order: all but the first `shown` of
 * them, documented ones (with a description that says more than the name) counting first. Empty
 * when there are not more.
 */
function optionalNamedOnly(def: ToolDefinition, needed: ReadonlySet<string>, shown: number, documented: (p: ToolParameter) => boolean): Set<string> {
  const optional = [...new Map(def.parameters.filter((p) => !needed.has(p.name)).map((p) => [p.name, p])).values()];
  if (optional.length <= shown) return new Set();
  const kept = new Set([...optional.filter(documented), ...optional.filter((p) => !documented(p))].slice(0, shown).map((p) => p.name));
  return new Set(optional.filter((p) => !kept.has(p.name)).map((p) => p.name));
}

const RULE_ORDER: readonly CompactionRule[] = [
  "description-cut-at-sentence",
  "optional-descriptions-trimmed",
  "required-descriptions-trimmed",
  "optional-parameters-left-out",
  "optional-parameters-named-only",
  "optional-defaults-dropped",
  "described-defaults-dropped",
  "long-defaults-dropped",
  "empty-parameters-omitted",
  "restating-descriptions-dropped",
  "long-enum-summarised",
  "refs-inlined",
  "repeated-schema-inlined-once",
  "deep-nesting-as-object",
  "annotations-dropped",
  "nested-descriptions-trimmed",
];

/** A `tools` entry with nothing empty in it (rule "empty-parameters-omitted"). */
function compactFunctionTool(name: string, description: string, properties: Record<string, unknown>, required: string[]): OpenAiTool {
  const described = description === "" ? {} : { description };
  if (Object.keys(properties).length === 0) return { type: "function", function: { name, ...described } };
  return { type: "function", function: { name, ...described, parameters: { type: "object", properties, ...(required.length === 0 ? {} : { required }) } } };
}
