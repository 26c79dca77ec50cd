import type { ToolDefinition, ToolParameter } from "../definition";
import { checkValue, preview, schemaSummary } from "./schema";

/**
 * Argument validation, done before anything touches the network.
 *
 * Absent means `undefined`; for path/query/header parameters `null` also means absent, since a URL
 * or header has no way to say null. Body parameters keep `null` and validate it like any value.
 *
 * Coercion policy (LLM-written programs mix up "123" and 123 all the time): for path, query and
 * header parameters only, when the value as given fails the schema, the obvious conversions are
 * tried and the first that passes is used: a decimal string → number ("42", "-1.5"; integers only
 * when exactly representable), "true"/"false" → boolean, a number or boolean → its string, and the
 * same element-wise for arrays. On the wire these are identical, so nothing is lost. Body values are
 * never coerced: JSON carries the type, and sending a string where the API wants a number would
 * silently change the request.
 */

export type ArgumentCheck =
  | { ok: true; values: Record<string, unknown> }
  | { ok: false; kind: "invalid_arguments" | "invalid_definition"; argument?: string; message: string };

/** Checks arguments against a tool's parameters; on success returns the (possibly coerced) values. */
export function validateArguments(def: ToolDefinition, args: Record<string, unknown>): ArgumentCheck {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { ok: false, kind: "invalid_arguments", message: `arguments must be an object of named values, got ${preview(args)}` };
  }
  const byName = groupByName(def.parameters);
  const unknown = Object.keys(args).filter((k) => args[k] !== undefined && !byName.has(k));
  if (unknown.length > 0) {
    const names = unknown.map((n) => JSON.stringify(n)).join(", ");
    return {
      ok: false,
      kind: "invalid_arguments",
      argument: unknown[0],
      message: `unknown argument${unknown.length > 1 ? "s" : ""} ${names} for tool ${def.name}; ${acceptedNames(def.parameters)}`,
    };
  }

  const values: Record<string, unknown> = {};
  for (const [name, params] of byName) {
    const raw = args[name];
    for (const param of params) {
      const absent = raw === undefined || (raw === null && param.in !== "body");
      if (absent) {
        // OpenAPI: path parameters are always required, whatever the flag says.
        if (param.required || param.in === "path") {
          return {
            ok: false,
            kind: "invalid_arguments",
            argument: name,
            message: `missing required argument "${name}" (${param.in} parameter), expected ${schemaSummary(param.schema)}${param.description ? `: ${firstLine(param.description)}` : ""}`,
          };
        }
        continue;
      }
      const checked = checkParameter(
        param,
        raw,
        params.every((p) => p.in !== "body"),
      );
      if (!checked.ok) return checked;
      values[name] = checked.value;
    }
  }
  return { ok: true, values };
}

type ParameterCheck = { ok: true; value: unknown } | { ok: false; kind: "invalid_arguments" | "invalid_definition"; argument: string; message: string };

function checkParameter(param: ToolParameter, raw: unknown, mayCoerce: boolean): ParameterCheck {
  try {
    const first = checkValue(param.schema, raw);
    if (first.ok) return { ok: true, value: raw };
    if (mayCoerce) {
      for (const candidate of obviousConversions(raw)) {
        if (checkValue(param.schema, candidate).ok) return { ok: true, value: candidate };
      }
    }
    return {
      ok: false,
      kind: "invalid_arguments",
      argument: param.name,
      message: `argument "${param.name}" (${param.in} parameter) is invalid: ${first.message} Expected ${schemaSummary(param.schema)}.`,
    };
  } catch (error) {
    return {
      ok: false,
      kind: "invalid_definition",
      argument: param.name,
      message: `the tool's schema for "${param.name}" cannot be used (${error instanceof Error ? error.message : String(error)}); this is a problem in the tool definition, not in the arguments`,
    };
  }
}

const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const INTEGER = /^-?(?:0|[1-9]\d*)$/;

/** "42" → 42, "true" → true; undefined when the string is not an obvious number or boolean. */
function fromString(value: string): number | boolean | undefined {
  if (value === "true") return true;
  if (value === "false") return false;
  if (!DECIMAL.test(value)) return undefined;
  const n = Number(value);
  // A long ID like "12345678901234567890" must not be rounded into a different ID.
  return Number.isFinite(n) && (!INTEGER.test(value) || Number.isSafeInteger(n)) ? n : undefined;
}

/** 42 → "42", true → "true"; undefined for anything else. */
function toText(value: unknown): string | undefined {
  return (typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean" ? String(value) : undefined;
}

/** Candidate replacements for a value that failed its schema: parsed strings first, then text. */
function obviousConversions(value: unknown): unknown[] {
  const parse = (v: unknown): unknown => (typeof v === "string" ? (fromString(v) ?? v) : v);
  const text = (v: unknown): unknown => toText(v) ?? v;
  const candidates = Array.isArray(value) ? [value.map(parse), value.map(text)] : [parse(value), text(value)];
  return candidates.filter((c) => JSON.stringify(c) !== JSON.stringify(value));
}

function groupByName(parameters: ToolParameter[]): Map<string, ToolParameter[]> {
  const map = new Map<string, ToolParameter[]>();
  for (const p of parameters) map.set(p.name, [...(map.get(p.name) ?? []), p]);
  return map;
}

function acceptedNames(parameters: ToolParameter[]): string {
  if (parameters.length === 0) return "this tool takes no arguments";
  const names = [...new Set(parameters.map((p) => p.name))];
  const required = [...new Set(parameters.filter((p) => p.required || p.in === "path").map((p) => p.name))];
  return `accepted: ${names.join(", ")}${required.length > 0 ? ` (required: ${required.join(", ")})` : ""}`;
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}
