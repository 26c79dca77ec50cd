import type { HttpMethod, JsonSchema, ToolParameter } from "./definition";
import type { ParameterInput } from "./list-input";
import { requiredFlag } from "./request-body";
import { isRecord, type Json } from "./schema-copier";
import { repairSchemaKeywords } from "./schema-keywords";
import { JSON_TYPE_ALIASES } from "./type-aliases";

/**
 * One listed parameter → a ToolParameter (list-import.ts): where it goes (the URL template wins
 * over what the entry says; autotools' `in: "required" | "optional"` is a query parameter) and its
 * JSON Schema, shorthand keywords folded in and loose type names (`String`, `float`) fixed.
 */

const LOCATION_ALIASES: Record<string, ToolParameter["in"] | "required" | "optional"> = {
  path: "path",
  query: "query",
  header: "header",
  body: "body",
  formdata: "body",
  required: "required",
  optional: "optional",
};

export function toParameter(
  input: ParameterInput,
  method: HttpMethod,
  template: string[],
  field: string,
  report: (issue: string) => void,
  warn: (warning: string) => void,
): ToolParameter | undefined {
  const raw = input.in?.trim().toLowerCase();
  const alias = raw === undefined || raw === "" ? undefined : LOCATION_ALIASES[raw];
  if (raw !== undefined && raw !== "" && alias === undefined) {
    report(`${field}.in: "${input.in ?? ""}" is not supported; use path, query, header or body`);
    return undefined;
  }
  let location: ToolParameter["in"];
  if (template.includes(input.name)) {
    // The URL template wins over what the entry says.
    location = "path";
    if (alias !== undefined && alias !== "path")
      warn(`"${input.name}" is a placeholder in the URL, so it is a path parameter (the list says ${input.in ?? ""}).`);
  } else if (alias === "path") {
    report(`${field}.in: path parameter "${input.name}" does not appear in the URL`);
    return undefined;
  } else if (alias === undefined) {
    location = method === "POST" || method === "PUT" || method === "PATCH" ? "body" : "query";
  } else {
    location = alias === "required" || alias === "optional" ? "query" : alias;
  }

  const schema = parameterSchema(input, field, warn);
  const required =
    location === "path" ? true : input.required === undefined ? alias === "required" : requiredFlag(input.required, `${field} "${input.name}"`, { add: warn });
  return {
    name: input.name,
    in: location,
    required,
    ...(input.description === undefined ? {} : { description: input.description }),
    schema,
  };
}

/** The parameter's JSON Schema: `schema`, plus shorthand keywords, with loose type names fixed. */
function parameterSchema(input: ParameterInput, field: string, warn: (warning: string) => void): JsonSchema {
  const schema: Json = structuredClone(input.schema ?? {});
  if (input.type !== undefined && schema.type === undefined) schema.type = input.type;
  if (input.format !== undefined && schema.format === undefined) schema.format = input.format;
  if (input.enum !== undefined && schema.enum === undefined) schema.enum = structuredClone(input.enum);
  if (input.items !== undefined && schema.items === undefined) schema.items = structuredClone(input.items);
  if (input.default !== undefined && schema.default === undefined) schema.default = structuredClone(input.default);
  if (input.example !== undefined && schema.examples === undefined) schema.examples = [structuredClone(input.example)];
  normalizeTypes(schema, field, warn);
  repairSchemaKeywords(schema, field, warn);
  return schema;
}

function normalizeTypes(schema: Json, field: string, warn: (warning: string) => void): void {
  const fix = (type: unknown): string | undefined => {
    if (typeof type !== "string") return undefined;
    const known = JSON_TYPE_ALIASES[type.trim().toLowerCase()];
    if (known === undefined && type.trim() !== "") warn(`${field}: type "${type}" is unknown; the type is left open.`);
    return known;
  };
  if (typeof schema.type === "string") {
    const type = fix(schema.type);
    if (type === undefined) delete schema.type;
    else schema.type = type;
  } else if (Array.isArray(schema.type)) {
    const types = schema.type.map(fix).filter((t): t is string => t !== undefined);
    if (types.length === 0) delete schema.type;
    else schema.type = types;
  }
  if (isRecord(schema.items)) normalizeTypes(schema.items, `${field}.items`, warn);
}
