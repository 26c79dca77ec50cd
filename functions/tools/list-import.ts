import { z } from "zod";
import { AuthRequirement, HttpMethod, JsonSchema, ToolDefinition, type ToolParameter } from "./definition";
import { documentedResponse, ToolImportError, type ImportResult } from "./openapi-import";
import { isToolName, NameRegistry, nameFromOperation, toIdentifier } from "./tool-names";
import { requestBodyParameters, requiredFlag } from "./request-body";
import { SchemaCopier, Warnings } from "./schema-copier";
import { JSON_TYPE_ALIASES } from "./type-aliases";
import { repairSchemaKeywords } from "./schema-keywords";
import { apiTitleOf } from "./api-info";

/**
 * A bare tool list → ToolDefinition[]. Accepts
 * - an array of items `{ name, method, url | serverUrl+path, description?, parameters? }`, with
 *   parameters in OpenAPI style (`{name, in, required, schema}`) or shorthand (`{name, type}`);
 * - `{ tools: [...] }`, and the autotools format `{ servers, headers, endpoints: [...] }`.
 *
 * The URL template is the authority on path parameters: a `{x}` in the URL makes `x` a required
 * path parameter, whatever its entry says (autotools lists `{item_id}` as `in: query`), and
 * placeholders without an entry are added as strings. Autotools quirks handled: `params` for
 * `parameters`, `in: "required" | "optional"` meaning a (required / optional) query parameter,
 * type names like `String` / `float`, a server URL without scheme, the recorded `response` (kept
 * as `responseExample`), and `responses` holding an OpenAPI 3.0 response object (its JSON schema
 * and example are used). Real-spec quirks: `required: "true"` / `"false"` strings are read as the
 * boolean with a warning; an OpenAPI-style `requestBody` becomes body parameters (as in the OpenAPI
 * import; a property named like another parameter makes the body one parameter, with a warning;
 * `requestBody: null`, as autotools writes it, means no body). `_`-prefixed fields
 * (`_responses_json`…) and `operation` (recomputed) are ignored silently; other unknown fields get
 * a warning. A bare `url` is split at its origin (`https://host` + `/v1/items/{id}`) unless a
 * declared server prefixes it. One bad item never rejects the list: it is skipped with a warning
 * naming it and what is wrong (unless `skipInvalid: false` asks for all or nothing).
 */

export type ListImportOptions = {
  /** Skip invalid items, each reported as a warning (default), or reject the whole list (false). */
  skipInvalid?: boolean;
};

type Json = Record<string, unknown>;

const ParameterInput = z
  .object({
    name: z.string().min(1).max(200),
    in: z.string().optional(),
    // Booleans, or the strings "true" / "false" some generators write (read with a warning).
    required: z.union([z.boolean(), z.string()]).optional(),
    description: z.string().max(10_000).optional(),
    schema: JsonSchema.optional(),
    // Shorthand JSON Schema keywords, folded into `schema`.
    type: z.string().optional(),
    format: z.string().optional(),
    enum: z.array(z.unknown()).optional(),
    items: JsonSchema.optional(),
    default: z.unknown().optional(),
    example: z.unknown().optional(),
  })
  .loose();
type ParameterInput = z.infer<typeof ParameterInput>;

const ItemInput = z
  .object({
    name: z.string().min(1).max(200).optional(),
    method: z
      .string()
      .transform((m) => m.trim().toUpperCase())
      .pipe(HttpMethod),
    url: z.string().min(1).optional(),
    serverUrl: z.string().min(1).optional(),
    path: z.string().optional(),
    summary: z.string().max(1_000).optional(),
    description: z.string().max(20_000).optional(),
    parameters: z.array(ParameterInput).max(200).optional(),
    params: z.array(ParameterInput).max(200).optional(),
    bodyContentType: z.string().min(1).optional(),
    auth: AuthRequirement.optional(),
    tags: z.array(z.string()).max(50).optional(),
    // The title of the API the tool belongs to (api-info.ts).
    apiTitle: z.string().max(1_000).optional(),
    responseSchema: JsonSchema.optional(),
    responseExample: z.unknown().optional(),
    response: z.unknown().optional(),
    responses: z.unknown().optional(),
    requestBody: z.unknown().optional(),
  })
  .loose();
type ItemInput = z.infer<typeof ItemInput>;

/** Fields an item may carry that are not ours, and that we ignore without a warning. */
const QUIET_EXTRA_FIELDS = new Set(["operation"]);
const KNOWN_FIELDS = new Set([...Object.keys(ItemInput.shape), ...QUIET_EXTRA_FIELDS]);

const LOCATION_ALIASES: Record<string, ToolParameter["in"] | "required" | "optional"> = {
  path: "path",
  query: "query",
  header: "header",
  body: "body",
  formdata: "body",
  required: "required",
  optional: "optional",
};

type ListContext = {
  servers: string[];
  fixedHeaders: [string, string][];
  auth: AuthRequirement | undefined;
  warnings: string[];
};

/** Import a bare tool list (or autotools `{servers, headers, endpoints}`); throws ToolImportError listing each bad item and field. */
export function importToolList(list: unknown, options: ListImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const { items, servers, headers } = unwrap(list);
  if (items.length === 0) throw new ToolImportError("invalid_list", "The tool list is empty.");
  const context: ListContext = { servers, ...headerRoles(headers, warnings), warnings };

  const issuesByItem = new Map<number, string[]>();
  const report = (index: number, issue: string): void => {
    const list = issuesByItem.get(index) ?? [];
    list.push(issue);
    issuesByItem.set(index, list);
  };

  // 1. Shape of each item.
  const parsed: (ItemInput | undefined)[] = items.map((raw, index) => {
    const result = ItemInput.safeParse(raw);
    if (!result.success) {
      for (const issue of result.error.issues) report(index, `${fieldPath(issue.path)}: ${issue.message}`);
      return undefined;
    }
    return result.data;
  });
  warnUnknownFields(items, warnings);

  // 2. Names: explicit valid names are reserved first so that derived names never take them; a
  // name given twice is renamed (`_2`, `_3`…) like the OpenAPI and MCP importers do.
  const names = new NameRegistry();
  const chosen: (string | undefined)[] = parsed.map(() => undefined);
  const firstUse = new Map<string, number>();
  parsed.forEach((item, index) => {
    if (item?.name === undefined || !isToolName(item.name) || names.has(item.name)) return;
    chosen[index] = names.claim(item.name);
    firstUse.set(item.name, index);
  });
  parsed.forEach((item, index) => {
    if (item?.name === undefined || !isToolName(item.name) || firstUse.get(item.name) === index) return;
    chosen[index] = names.claim(item.name);
    warnings.push(
      `${itemLabel(index, item.name)}: the name "${item.name}" is also used by item ${firstUse.get(item.name) ?? "?"}; named "${chosen[index] ?? ""}".`,
    );
  });

  // 3. Everything else, item by item.
  const tools: ToolDefinition[] = [];
  const built: (Json | undefined)[] = parsed.map((item, index) =>
    item === undefined ? undefined : buildItem(item, index, context, (issue) => report(index, issue)),
  );
  built.forEach((candidate, index) => {
    const item = parsed[index];
    if (candidate === undefined || item === undefined || issuesByItem.has(index)) return;
    let name = chosen[index];
    if (name === undefined) {
      const base = (item.name === undefined ? "" : toIdentifier(item.name)) || nameFromOperation(item.method, String(candidate.path));
      name = names.claim(base);
      if (item.name !== undefined) warnings.push(`${itemLabel(index, item.name)}: "${item.name}" is not an identifier; named "${name}".`);
      else if (name !== base) warnings.push(`${itemLabel(index, undefined)}: named "${name}" ("${base}" is taken).`);
    }
    const result = ToolDefinition.safeParse({ ...candidate, name });
    if (!result.success) {
      for (const issue of result.error.issues) report(index, `${fieldPath(issue.path)}: ${issue.message}`);
      return;
    }
    tools.push(result.data);
  });

  const issues = [...issuesByItem.entries()]
    .sort(([a], [b]) => a - b)
    .flatMap(([index, list]) => list.map((issue) => `${itemLabel(index, nameOf(items[index]))}: ${issue}`));
  if (issues.length > 0) {
    if (options.skipInvalid === false) {
      const shown = issues.slice(0, 5).join("; ");
      const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : "";
      throw new ToolImportError("invalid_list", `The tool list is invalid: ${shown}${more}.`, issues);
    }
    warnings.push(...issues.map((issue) => `skipped ${issue}`));
  }
  if (tools.length === 0) throw new ToolImportError("invalid_list", "No item of the tool list could be imported.", issues);
  return { tools, warnings };
}

function unwrap(list: unknown): { items: unknown[]; servers: string[]; headers: Json } {
  if (Array.isArray(list)) return { items: list, servers: [], headers: {} };
  if (isRecord(list)) {
    const items = Array.isArray(list.endpoints) ? list.endpoints : Array.isArray(list.tools) ? list.tools : undefined;
    if (items !== undefined) {
      const servers = (Array.isArray(list.servers) ? list.servers : [])
        .map((s: unknown) => (isRecord(s) ? s.url : s))
        .filter((u): u is string => typeof u === "string" && u.trim() !== "")
        .map((u) => stripTrailingSlash(/^[a-z][a-z0-9+.-]*:\/\//i.test(u) ? u.trim() : `https://${u.trim()}`));
      return { items, servers, headers: isRecord(list.headers) ? list.headers : {} };
    }
  }
  throw new ToolImportError(
    "invalid_list",
    "Expected a list of tools: an array of {name, method, url, parameters} items, or an object with `tools` or `endpoints` (autotools format).",
  );
}

/**
 * Splits list-wide headers into the credential (its value is a placeholder or a secret, never
 * kept: credentials are stored apart) and fixed headers, which become optional header parameters
 * whose schema `default` is the value to send.
 */
function headerRoles(headers: Json, warnings: string[]): { auth: AuthRequirement | undefined; fixedHeaders: [string, string][] } {
  let auth: AuthRequirement | undefined;
  const fixedHeaders: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") continue;
    const credential = /^authorization$/i.test(name) || /(api[-_]?key|token|secret|password)/i.test(name) || /^<.*>$/.test(value.trim());
    if (!credential) {
      fixedHeaders.push([name, value]);
      continue;
    }
    if (auth !== undefined) {
      warnings.push(`Header "${name}" also looks like a credential; only one credential per tool is supported, so it is ignored.`);
      continue;
    }
    auth = /^authorization$/i.test(name) && /^bearer\b/i.test(value.trim()) ? { scheme: "bearer", in: "header" } : { scheme: "apiKey", in: "header", name };
    warnings.push(`Header "${name}" is treated as the API credential; its value in the list is ignored (store the credential separately).`);
  }
  return { auth, fixedHeaders };
}

function buildItem(item: ItemInput, index: number, context: ListContext, report: (issue: string) => void): Json | undefined {
  const label = itemLabel(index, item.name);
  const location = resolveLocation(item, context.servers, report);
  if (location === undefined) return undefined;
  const { serverUrl, path } = location;

  if (item.parameters !== undefined && item.params !== undefined) report("params: give either parameters or params, not both");
  const inputs = item.parameters ?? item.params ?? [];
  const template = pathTemplateNames(path);
  const parameters: ToolParameter[] = [];
  inputs.forEach((input, i) => {
    const parameter = toParameter(input, item.method, template, `parameters[${i}]`, report, (w) => context.warnings.push(`${label}: ${w}`));
    if (parameter === undefined) return;
    if (parameters.some((p) => p.name === parameter.name && p.in === parameter.in)) {
      report(`parameters[${i}].name: "${parameter.name}" (${parameter.in}) is listed twice`);
      return;
    }
    parameters.push(parameter);
  });
  for (const name of template) {
    if (!parameters.some((p) => p.in === "path" && p.name === name)) parameters.push({ name, in: "path", required: true, schema: { type: "string" } });
  }
  for (const [name, value] of context.fixedHeaders) {
    if (parameters.some((p) => p.in === "header" && p.name.toLowerCase() === name.toLowerCase())) continue;
    parameters.push({
      name,
      in: "header",
      required: false,
      description: "Fixed header from the tool list; send the default value.",
      schema: { type: "string", default: value },
    });
  }

  const body = bodyParameters(item, label, parameters, context.warnings);
  parameters.push(...body.parameters);

  const fromResponses = item.responses === undefined ? {} : documentedResponse(item.responses);
  const responseSchema = item.responseSchema ?? fromResponses.responseSchema;
  const responseExample = item.responseExample ?? item.response ?? fromResponses.responseExample;
  const hasBody = parameters.some((p) => p.in === "body");

  return {
    method: item.method,
    serverUrl,
    path,
    operation: `${item.method} ${path}`,
    summary: item.summary,
    description: item.description ?? item.summary ?? "",
    parameters,
    bodyContentType: hasBody ? (item.bodyContentType ?? body.contentType ?? "application/json") : undefined,
    responseSchema,
    responseExample,
    auth: item.auth ?? context.auth,
    tags: item.tags ?? [],
    apiTitle: apiTitleOf(item.apiTitle),
  };
}

/**
 * Body parameters from an OpenAPI-style `requestBody` (`{content: {"application/json": {schema}}}`),
 * read as the OpenAPI import reads it. `null` (autotools) means no body; anything else that has no
 * `content` is reported, not dropped silently.
 */
function bodyParameters(item: ItemInput, label: string, others: ToolParameter[], warnings: string[]): { parameters: ToolParameter[]; contentType?: string } {
  const requestBody = item.requestBody;
  if (requestBody === undefined || requestBody === null) return { parameters: [] };
  if (!isRecord(requestBody) || !isRecord(requestBody.content)) {
    warnings.push(`${label}: requestBody has no \`content\` map of media types (OpenAPI style); ignored. List body fields as parameters with in: "body".`);
    return { parameters: [] };
  }
  if (others.some((p) => p.in === "body")) {
    warnings.push(`${label}: both body parameters and a requestBody are given; the requestBody is ignored.`);
    return { parameters: [] };
  }
  const found = new Warnings();
  const result = requestBodyParameters(requestBody, others, new SchemaCopier(new WeakMap(), found, label), found);
  warnings.push(...found.list());
  return result;
}

/** serverUrl + path of an item, from `url` (split at a known server prefix, else at the origin) or given apart. */
function resolveLocation(item: ItemInput, servers: string[], report: (issue: string) => void): { serverUrl: string; path: string } | undefined {
  if (item.url !== undefined && (item.serverUrl !== undefined || item.path !== undefined)) {
    report("url: give either url or serverUrl + path, not both");
    return undefined;
  }
  if (item.url !== undefined) {
    const url = item.url.trim();
    const parts = splitUrl(url);
    if (parts === undefined) {
      report(`url: "${preview(url)}" is not an absolute http(s) URL such as https://api.example.com/v1/items/{id}`);
      return undefined;
    }
    if (/[?#]/.test(parts.rest)) {
      report("url: must not contain a query string or fragment; list query parameters in parameters");
      return undefined;
    }
    // The longest declared server that prefixes the URL becomes the base; else the origin does.
    const server = [...servers].sort((a, b) => b.length - a.length).find((s) => url.startsWith(s) && (url.length === s.length || url[s.length] === "/"));
    if (server !== undefined) return { serverUrl: server, path: url.slice(server.length) || "/" };
    return { serverUrl: parts.origin, path: parts.rest || "/" };
  }
  if (item.serverUrl === undefined || item.path === undefined) {
    report("url: required (a full URL template), or serverUrl and path");
    return undefined;
  }
  const base = splitUrl(item.serverUrl.trim());
  if (base === undefined || /[?#{}]/.test(base.rest)) {
    report(`serverUrl: "${preview(item.serverUrl)}" is not an absolute http(s) base URL such as https://api.example.com/v1`);
    return undefined;
  }
  const path = item.path.trim().startsWith("/") ? item.path.trim() : `/${item.path.trim()}`;
  if (/[?#]/.test(path)) {
    report("path: must not contain a query string or fragment; list query parameters in parameters");
    return undefined;
  }
  return { serverUrl: stripTrailingSlash(base.origin + base.rest), path };
}

/** `https://host:port` and the rest, without parsing the rest: `new URL` would escape `{`/`}`. */
function splitUrl(url: string): { origin: string; rest: string } | undefined {
  const match = /^(https?:\/\/[^/?#{}\s]+)(\S*)$/i.exec(url);
  if (match?.[1] === undefined) return undefined;
  try {
    new URL(match[1]);
  } catch {
    return undefined;
  }
  return { origin: match[1], rest: match[2] ?? "" };
}

function toParameter(
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

function warnUnknownFields(items: unknown[], warnings: string[]): void {
  const unknown = new Map<string, number[]>();
  items.forEach((item, index) => {
    if (!isRecord(item)) return;
    for (const key of Object.keys(item)) {
      if (KNOWN_FIELDS.has(key) || key.startsWith("_")) continue;
      unknown.set(key, [...(unknown.get(key) ?? []), index]);
    }
  });
  for (const [key, indexes] of unknown) {
    const where = indexes.length > 3 ? `${indexes.slice(0, 3).join(", ")}…` : indexes.join(", ");
    warnings.push(`Field "${key}" is not part of the tool list format and was ignored (item ${where}).`);
  }
}

function fieldPath(path: PropertyKey[]): string {
  let out = "";
  for (const part of path) out += typeof part === "number" ? `[${part}]` : `${out === "" ? "" : "."}${String(part)}`;
  return out === "" ? "(item)" : out;
}

function itemLabel(index: number, name: string | undefined): string {
  return name === undefined ? `item ${index}` : `item ${index} (${name})`;
}

function nameOf(item: unknown): string | undefined {
  return isRecord(item) && typeof item.name === "string" ? item.name : undefined;
}

function preview(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function pathTemplateNames(path: string): string[] {
  return [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1] ?? "").filter((n) => n !== "");
}

function stripTrailingSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
