import type { JsonSchema, ToolDefinition } from "../tools/definition";

/**
 * Tool protocols rendered as a typed TypeScript API (the paper's documented protocol, as code):
 * the program calls `await tools.<name>({...})`, and the response type tells it which fields
 * exist, so data can flow from one tool to the next without guessing.
 */

const MAX_DEPTH = 6;
const MAX_PROPERTIES = 40;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

function schemaType(schema: unknown): string | string[] | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  return (schema as { type?: string | string[] }).type;
}

/** A JSON Schema (OpenAPI 3.1 dialect) as a TypeScript type expression, depth- and width-capped. */
export function schemaToTs(schema: unknown, depth = 0): string {
  if (typeof schema !== "object" || schema === null || depth > MAX_DEPTH) return "unknown";
  const s = schema as JsonSchema & {
    enum?: unknown[];
    const?: unknown;
    items?: unknown;
    properties?: Record<string, unknown>;
    required?: string[];
    anyOf?: unknown[];
    oneOf?: unknown[];
    allOf?: unknown[];
    additionalProperties?: unknown;
  };
  if (Array.isArray(s.enum) && s.enum.length > 0 && s.enum.length <= 20) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  const variants = s.anyOf ?? s.oneOf;
  if (Array.isArray(variants) && variants.length > 0) return variants.map((v) => schemaToTs(v, depth + 1)).join(" | ");
  if (Array.isArray(s.allOf) && s.allOf.length > 0) return s.allOf.map((v) => schemaToTs(v, depth + 1)).join(" & ");
  const type = schemaType(s);
  if (Array.isArray(type)) return type.map((t) => schemaToTs({ ...s, type: t }, depth)).join(" | ");
  switch (type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return `${wrap(schemaToTs(s.items, depth + 1))}[]`;
    case "object":
    case undefined: {
      if (s.properties === undefined) return type === "object" ? "Record<string, unknown>" : "unknown";
      const required = new Set(s.required ?? []);
      const entries = Object.entries(s.properties);
      const shown = entries
        .slice(0, MAX_PROPERTIES)
        .map(([key, value]) => `${propertyKey(key)}${required.has(key) ? "" : "?"}: ${schemaToTs(value, depth + 1)}`);
      if (entries.length > MAX_PROPERTIES) shown.push(`/* ${entries.length - MAX_PROPERTIES} more fields */ [key: string]: unknown`);
      return `{ ${shown.join("; ")} }`;
    }
    default:
      return "unknown";
  }
}

function wrap(type: string): string {
  return /[|&]/.test(type) ? `(${type})` : type;
}

/** The argument object type of a tool: one property per parameter. */
export function argumentsType(def: ToolDefinition): string {
  if (def.parameters.length === 0) return "{}";
  const fields = def.parameters.map((p) => {
    const doc = p.description === undefined ? "" : ` /** ${oneLine(p.description, 200)} (${p.in}) */`;
    return `${doc} ${propertyKey(p.name)}${p.required ? "" : "?"}: ${schemaToTs(p.schema)};`;
  });
  return `{${fields.join("")} }`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").replaceAll("*/", "* /").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export interface ProtocolOverrides {
  /** A probed or optimised description that replaces the registered one. */
  description?: string;
  /** A response schema learned by probing, when the document had none. */
  responseSchema?: JsonSchema;
  /** A worked example: a query and a program that used the tool. */
  example?: { query: string; program: string };
}

/** One tool's protocol as a documented method signature. */
export function renderToolSignature(def: ToolDefinition, overrides: ProtocolOverrides = {}, full = false): string {
  const description = oneLine(overrides.description ?? (def.description || def.summary || ""), full ? 4_000 : 600);
  const responseSchema = overrides.responseSchema ?? def.responseSchema;
  const returns = responseSchema === undefined ? "unknown /* response not documented */" : schemaToTs(responseSchema);
  const lines = [`  /**`, `   * ${description}`, `   * ${def.operation}`];
  if (overrides.example !== undefined) {
    lines.push(`   * Example — task: ${oneLine(overrides.example.query, 200)}`);
    for (const line of overrides.example.program.split("\n").slice(0, full ? 40 : 12)) lines.push(`   *   ${line.replaceAll("*/", "* /")}`);
  }
  lines.push(`   */`, `  ${def.name}(args: ${argumentsType(def)}): Promise<${returns}>;`);
  return lines.join("\n");
}

/** The whole candidate set as `declare const tools: {...}`. */
export function renderToolsApi(defs: ToolDefinition[], overrides: Map<string, ProtocolOverrides> = new Map()): string {
  const body = defs.map((def) => renderToolSignature(def, overrides.get(def.name))).join("\n");
  return `declare const tools: {\n${body}\n};`;
}
