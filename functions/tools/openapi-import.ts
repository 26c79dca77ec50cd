import { dereference, upgrade } from "@scalar/openapi-parser";
import { parse as parseYaml } from "yaml";
import { HttpMethod, ToolDefinition, type AuthRequirement, type JsonSchema, type ToolParameter } from "./definition";
import { apiTitleOf } from "./api-info";
import { copyJson, isRecord, SchemaCopier, Warnings, type Json } from "./schema-copier";
import { isJsonMediaType, requestBodyParameters, requiredFlag } from "./request-body";
import { NameRegistry, nameFromOperation, toIdentifier } from "./tool-names";
import { repairReferences } from "./reference-repair";

/**
 * OpenAPI 3.0 / 3.1 (and Swagger 2.0, upgraded) → ToolDefinition[].
 *
 * Everything is first upgraded to OpenAPI 3.1 with @scalar/openapi-parser, so schemas come out in
 * one dialect (3.0 `nullable` → `type: [x, "null"]`, schema `example` → `examples: [x]`).
 * Only `upgrade` and `dereference` are used: the parser's `validate` compiles Ajv schemas with
 * `new Function`, which workerd forbids.
 */

export type ImportResult = { tools: ToolDefinition[]; warnings: string[] };

export type ToolImportErrorCode =
  | "unparseable"
  | "not_openapi"
  | "no_operations"
  | "broken_ref"
  | "no_server_url"
  | "duplicate_name"
  | "invalid_option"
  | "invalid_list";

/** An import the user has to fix; `message` is meant for them, `issues` lists every problem. */
export class ToolImportError extends Error {
  override readonly name = "ToolImportError";
  readonly code: ToolImportErrorCode;
  readonly issues: string[];

  constructor(code: ToolImportErrorCode, message: string, issues: string[] = []) {
    super(message);
    this.code = code;
    this.issues = issues;
  }
}

export type OpenApiImportOptions = {
  /** Absolute base URL used for every tool instead of the document's `servers`. */
  serverUrl?: string;
  /** Names already given to tools of the same document (a background import's earlier batches): never handed out again. */
  reservedNames?: Iterable<string>;
  /** Where the document was fetched from (an import by URL): a relative server URL is resolved against it, as OpenAPI says. */
  documentUrl?: string;
};

const OPENAPI_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
/** Per the OpenAPI spec these header parameters are ignored: the HTTP layer sets them. */
const RESERVED_HEADERS = new Set(["accept", "content-type", "authorization"]);
const LIMITS = { summary: 1_000, description: 20_000, parameterDescription: 10_000, tags: 50 };
/** Bounds on one copied schema, so a huge or deeply recursive document cannot blow up a tool. */
const YAML_MAX_ALIASES = 100;

/** Import every operation of an OpenAPI 3.x (or Swagger 2.0) document, given as JSON/YAML text or an object. */
export async function importOpenApi(document: string | object, options: OpenApiImportOptions = {}): Promise<ImportResult> {
  const warnings = new Warnings();
  const override = options.serverUrl === undefined ? undefined : checkServerOverride(options.serverUrl);
  const source = typeof document === "string" ? parseText(document) : copyInput(document);
  const spec = toOpenApi31(source, warnings);
  repairReferences(spec, warnings);
  const { resolved, refSites } = dereferenceDocument(spec);

  const paths = resolved.paths;
  if (!isRecord(paths) || !Object.values(paths).some((item) => isRecord(item) && OPENAPI_METHODS.some((m) => isRecord(item[m])))) {
    throw new ToolImportError("no_operations", "The document has no operations: its `paths` is empty or missing.");
  }

  const components = isRecord(resolved.components) ? resolved.components : {};
  const context: DocumentContext = {
    servers: resolved.servers,
    security: resolved.security,
    securitySchemes: isRecord(components.securitySchemes) ? components.securitySchemes : {},
    serverOverride: override,
    documentUrl: options.documentUrl,
    refSites,
    warnings,
    apiTitle: isRecord(resolved.info) ? apiTitleOf(resolved.info.title) : undefined,
  };

  const names = new NameRegistry();
  for (const name of options.reservedNames ?? []) names.reserve(name);
  const operationIds = new Map<string, string>();
  const tools: ToolDefinition[] = [];

  for (const [path, pathItem] of Object.entries(paths)) {
    if (!isRecord(pathItem)) continue;
    for (const [key, operation] of Object.entries(pathItem)) {
      if (!OPENAPI_METHODS.includes(key) || !isRecord(operation)) continue;
      const method = key.toUpperCase();
      const label = `${method} ${path}`;
      const parsedMethod = HttpMethod.safeParse(method);
      if (!parsedMethod.success) {
        warnings.add(`${label}: ${method} operations are not supported; skipped.`);
        continue;
      }
      if (!path.startsWith("/")) {
        warnings.add(`${label}: the path does not start with "/"; skipped.`);
        continue;
      }

      const operationId = typeof operation.operationId === "string" ? operation.operationId.trim() : "";
      const base = (operationId !== "" ? toIdentifier(operationId) : "") || nameFromOperation(method, path);
      const name = names.claim(base);
      const earlier = operationId === "" ? undefined : operationIds.get(operationId);
      // A repeated operationId is one operation's mistake, not the document's: it gets another name.
      if (earlier !== undefined) warnings.add(`${label}: operationId "${operationId}" is also used by ${earlier}; named "${name}".`);
      else if (name !== base) warnings.add(`${label}: the name "${base}" is already taken; named "${name}".`);
      if (operationId !== "" && earlier === undefined) operationIds.set(operationId, label);

      const candidate = buildTool(context, {
        name,
        method: parsedMethod.data,
        path,
        pathItem,
        operation,
      });
      const parsed = ToolDefinition.safeParse(candidate);
      if (!parsed.success) {
        warnings.add(`${label}: skipped, it does not fit the tool format (${describeZodError(parsed.error)}).`);
        continue;
      }
      tools.push(parsed.data);
    }
  }

  if (tools.length === 0) {
    throw new ToolImportError("no_operations", "None of the document's operations could be imported.", warnings.list());
  }
  return { tools, warnings: warnings.list() };
}

/**
 * The success response of an OpenAPI 3.0 responses map (or a single response object), as
 * `responseSchema` / `responseExample`; for sources that embed OpenAPI fragments.
 */
export function documentedResponse(responses: unknown): { responseSchema?: JsonSchema; responseExample?: unknown } {
  if (!isRecord(responses)) return {};
  const map = "content" in responses || "description" in responses ? { "200": responses } : responses;
  // Run the fragment through the same 3.0 → 3.1 upgrade as whole documents, via a stub document.
  const stub = { openapi: "3.0.3", info: { title: "fragment", version: "0" }, paths: { "/": { get: { responses: copyJson(map) } } } };
  const upgraded: unknown = upgrade(stub).specification;
  const upgradedResponses = dig(upgraded, ["paths", "/", "get", "responses"]);
  return successResponse(upgradedResponses, new SchemaCopier(new WeakMap(), new Warnings(), ""));
}

// ---------------------------------------------------------------------------------------------
// Loading

function parseText(text: string): Json {
  const trimmed = text.trim();
  if (trimmed === "") throw new ToolImportError("unparseable", "The document is empty.");
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    // YAML is a superset of JSON, so anything JSON.parse rejects gets a second chance as YAML.
    try {
      value = parseYaml(trimmed, { maxAliasCount: YAML_MAX_ALIASES });
    } catch (error) {
      const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw new ToolImportError("unparseable", `The document is neither valid JSON nor valid YAML: ${detail}`);
    }
  }
  if (!isRecord(value)) {
    throw new ToolImportError("unparseable", `The document is not a JSON or YAML object (it reads as ${describeValue(value)}); expected an OpenAPI document.`);
  }
  return value;
}

function copyInput(document: object): Json {
  let value: unknown;
  try {
    // A JSON round trip detaches the caller's object (upgrading mutates) and rejects cycles.
    value = JSON.parse(JSON.stringify(document));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ToolImportError("unparseable", `The document is not plain JSON data: ${detail}`);
  }
  if (!isRecord(value)) {
    throw new ToolImportError("unparseable", `The document is ${describeValue(value)}, not an OpenAPI object.`);
  }
  return value;
}

function toOpenApi31(source: Json, warnings: Warnings): Json {
  const { openapi, swagger } = source;
  if (typeof swagger === "string" || typeof swagger === "number") {
    if (String(swagger) !== "2.0") {
      throw new ToolImportError("not_openapi", `Swagger ${String(swagger)} is not supported; use OpenAPI 3.x or Swagger 2.0.`);
    }
    warnings.add("Swagger 2.0 document: converted to OpenAPI 3.1 before import.");
  } else if (typeof openapi === "string") {
    if (!/^3\.[0-2](\.|$)/.test(openapi)) {
      throw new ToolImportError("not_openapi", `OpenAPI version "${openapi}" is not supported; use OpenAPI 3.0, 3.1 or 3.2.`);
    }
  } else {
    throw new ToolImportError("not_openapi", "This is not an OpenAPI document: it has no `openapi` version field (for example `openapi: 3.1.0`).");
  }
  let upgraded: unknown;
  try {
    upgraded = upgrade(source).specification;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ToolImportError("not_openapi", `The document could not be read as OpenAPI: ${detail}`);
  }
  if (!isRecord(upgraded)) throw new ToolImportError("not_openapi", "The document could not be read as OpenAPI.");
  return upgraded;
}

function dereferenceDocument(spec: Json): { resolved: Json; refSites: WeakMap<object, string> } {
  // The parser resolves $refs in place by merging the target into the referring object; remember
  // which objects were references, so recursion can later be cut exactly at a reference.
  const refSites = new WeakMap<object, string>();
  let result: ReturnType<typeof dereference>;
  try {
    result = dereference(spec, { onDereference: ({ schema, ref }) => refSites.set(schema, ref) });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ToolImportError("broken_ref", `The document's references could not be resolved: ${detail}`);
  }
  const errors = (result.errors ?? []).map((e) => e.message);
  if (errors.length > 0) {
    const external = (result.errors ?? []).some((e) => e.code === "EXTERNAL_REFERENCE_NOT_FOUND");
    const hint = external ? " References to other files or URLs are not supported: bundle the document into one file." : "";
    throw new ToolImportError("broken_ref", `The document has references that cannot be resolved: ${errors.join("; ")}.${hint}`, errors);
  }
  if (!isRecord(result.schema)) throw new ToolImportError("not_openapi", "The document could not be read as OpenAPI.");
  return { resolved: result.schema, refSites };
}

// ---------------------------------------------------------------------------------------------
// One operation

type DocumentContext = {
  servers: unknown;
  security: unknown;
  securitySchemes: Json;
  serverOverride: string | undefined;
  /** Where the document was fetched from, when it was (relative server URLs resolve against it). */
  documentUrl: string | undefined;
  refSites: WeakMap<object, string>;
  warnings: Warnings;
  /** The document's `info.title`, carried by every tool. */
  apiTitle: string | undefined;
};

type OperationInput = {
  name: string;
  method: HttpMethod;
  path: string;
  pathItem: Json;
  operation: Json;
};

function buildTool(context: DocumentContext, input: OperationInput): Record<string, unknown> {
  const { name, method, path, pathItem, operation } = input;
  const label = `${method} ${path}`;
  const copier = new SchemaCopier(context.refSites, context.warnings, label);

  const parameters = operationParameters(pathItem, operation, path, copier, context.warnings);
  const body = requestBodyParameters(operation.requestBody, parameters, copier, context.warnings);
  const summary = text(operation.summary);
  const description = text(operation.description) ?? summary ?? "";

  return {
    name,
    method,
    serverUrl: serverUrlFor(context, pathItem, operation),
    path,
    operation: label,
    summary: summary === undefined ? undefined : clip(summary, LIMITS.summary, `${label}: summary`, context.warnings),
    description: clip(description, LIMITS.description, `${label}: description`, context.warnings),
    parameters: [...parameters, ...body.parameters],
    bodyContentType: body.contentType,
    ...successResponse(operation.responses, copier),
    auth: authFor(context, operation),
    tags: tagsOf(operation.tags, label, context.warnings),
    apiTitle: context.apiTitle,
  };
}

function serverUrlFor(context: DocumentContext, pathItem: Json, operation: Json): string {
  if (context.serverOverride !== undefined) return context.serverOverride;
  // Operation and path-level `servers` override the document's, as in the spec.
  const servers = [operation.servers, pathItem.servers, context.servers].find((s) => Array.isArray(s) && s.length > 0);
  const first: unknown = Array.isArray(servers) ? servers[0] : undefined;
  if (!isRecord(first) || typeof first.url !== "string") {
    throw new ToolImportError(
      "no_server_url",
      "The document declares no server URL; pass serverUrl with the API's base URL (for example https://api.example.com/v1).",
    );
  }
  const variables = isRecord(first.variables) ? first.variables : {};
  const missing: string[] = [];
  const url = first.url.replace(/\{([^{}]+)\}/g, (_, variable: string) => {
    const spec = variables[variable];
    if (isRecord(spec) && (typeof spec.default === "string" || typeof spec.default === "number")) return String(spec.default);
    missing.push(variable);
    return `{${variable}}`;
  });
  if (missing.length > 0) {
    throw new ToolImportError("no_server_url", `The server URL "${first.url}" uses variables without a default (${missing.join(", ")}); pass serverUrl.`);
  }
  return stripTrailingSlash(absoluteServerUrl(url, context));
}

/**
 * `url` as an absolute http(s) URL. Relative ones are relative to where the document is served
 * (OpenAPI 3; Swagger 2.0 without `host` means the same): known for an import by URL, not for a
 * posted document, which gets a problem saying how to give it.
 */
function absoluteServerUrl(url: string, context: DocumentContext): string {
  // Swagger 2.0 with `host` but no `schemes` means "the scheme the document was read with"; unknown for a posted document, and https is the norm.
  if (url.startsWith("//") && context.documentUrl === undefined) {
    context.warnings.add(`The server URL "${url}" has no scheme; https is assumed (pass serverUrl if the API is served otherwise).`);
    return `https:${url}`;
  }
  if (isAbsoluteHttpUrl(url)) return url;
  const resolved = context.documentUrl === undefined ? undefined : resolvedAgainst(url, context.documentUrl);
  if (resolved !== undefined) {
    context.warnings.add(
      `The server URL "${url}" is relative; resolved against the document's URL to ${stripTrailingSlash(resolved)} (pass serverUrl if the API is served elsewhere).`,
    );
    return resolved;
  }
  throw new ToolImportError(
    "no_server_url",
    context.documentUrl === undefined
      ? `The document's server URL "${url}" is not an absolute http(s) URL: it is relative to where the document is served, which a posted document does not say. Import it by URL ({"format":"openapi","url":"https://…/openapi.json"}) or pass serverUrl with the full base URL.`
      : `The document's server URL "${url}" is not an http(s) URL, even resolved against ${context.documentUrl}; pass serverUrl with the full base URL.`,
  );
}

function resolvedAgainst(url: string, documentUrl: string): string | undefined {
  try {
    const resolved = new URL(url, documentUrl);
    // The base's query and fragment are no part of a server URL.
    resolved.search = "";
    resolved.hash = "";
    return isAbsoluteHttpUrl(resolved.href) ? resolved.href : undefined;
  } catch {
    return undefined;
  }
}

function operationParameters(pathItem: Json, operation: Json, path: string, copier: SchemaCopier, warnings: Warnings): ToolParameter[] {
  const label = copier.label;
  // Operation-level parameters override path-level ones with the same name and location.
  const merged = new Map<string, Json>();
  for (const raw of [...asArray(pathItem.parameters), ...asArray(operation.parameters)]) {
    if (isRecord(raw) && typeof raw.name === "string" && typeof raw.in === "string") merged.set(`${raw.in}\u0000${raw.name}`, raw);
  }

  const templateNames = pathTemplateNames(path);
  const result: ToolParameter[] = [];
  for (const raw of merged.values()) {
    const name = String(raw.name);
    const location = String(raw.in);
    if (location === "header" && RESERVED_HEADERS.has(name.toLowerCase())) continue;
    if (location !== "path" && location !== "query" && location !== "header") {
      warnings.add(`${label}: ${location} parameter "${name}" is not supported; left out${raw.required === true ? " (it is required: calls may fail)" : ""}.`);
      continue;
    }
    if (location === "path" && !templateNames.includes(name)) {
      warnings.add(`${label}: path parameter "${name}" does not appear in the path; left out.`);
      continue;
    }
    const schema = copier.schema(raw.schema ?? firstMediaSchema(raw.content), `parameter ${name}`);
    const example = parameterExample(raw);
    if (example !== undefined && schema.examples === undefined && schema.example === undefined) {
      schema.examples = [copier.value(example)];
    }
    const description = text(raw.description);
    result.push({
      name,
      in: location,
      // Path parameters are always required, whatever the document says.
      required: location === "path" ? true : requiredFlag(raw.required, `${label}: parameter ${name}`, warnings),
      description: description === undefined ? undefined : clip(description, LIMITS.parameterDescription, `${label}: parameter ${name}`, warnings),
      schema,
    });
  }

  for (const name of templateNames) {
    if (!result.some((p) => p.in === "path" && p.name === name)) {
      warnings.add(`${label}: path parameter "${name}" is not declared; added as a required string.`);
      result.push({ name, in: "path", required: true, schema: { type: "string" } });
    }
  }
  return result;
}

/** `responseSchema` / `responseExample` of the success response: 200, else lowest 2xx, else `default`. */
function successResponse(responses: unknown, copier: SchemaCopier): { responseSchema?: JsonSchema; responseExample?: unknown } {
  if (!isRecord(responses)) return {};
  const keys = Object.keys(responses);
  const twoHundreds = keys.filter((k) => /^2\d\d$/.test(k)).sort();
  const key =
    (keys.includes("200") ? "200" : undefined) ??
    twoHundreds[0] ??
    keys.find((k) => k.toUpperCase() === "2XX") ??
    (keys.includes("default") ? "default" : undefined);
  const response = key === undefined ? undefined : responses[key];
  if (!isRecord(response) || !isRecord(response.content)) return {};
  const types = Object.keys(response.content);
  const mediaType = types.find((t) => t === "application/json") ?? types.find(isJsonMediaType);
  const media = mediaType === undefined ? undefined : response.content[mediaType];
  if (!isRecord(media)) return {};

  const result: { responseSchema?: JsonSchema; responseExample?: unknown } = {};
  if (isRecord(media.schema)) result.responseSchema = copier.schema(media.schema, "response");
  const example = mediaExample(media);
  if (example !== undefined) result.responseExample = copier.value(example);
  return result;
}

function mediaExample(media: Json): unknown {
  if (media.example !== undefined) return media.example;
  if (isRecord(media.examples)) {
    for (const example of Object.values(media.examples)) {
      if (isRecord(example) && example.value !== undefined) return example.value;
    }
  }
  const schema = media.schema;
  if (isRecord(schema)) {
    if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
    if (schema.example !== undefined) return schema.example;
  }
  return undefined;
}

function parameterExample(parameter: Json): unknown {
  if (parameter.example !== undefined) return parameter.example;
  if (isRecord(parameter.examples)) {
    for (const example of Object.values(parameter.examples)) {
      if (isRecord(example) && example.value !== undefined) return example.value;
    }
  }
  return undefined;
}

function authFor(context: DocumentContext, operation: Json): AuthRequirement | undefined {
  // An operation's own `security` (even an empty list) replaces the document's.
  const requirements = Array.isArray(operation.security) ? operation.security : asArray(context.security);
  for (const alternative of requirements) {
    if (!isRecord(alternative)) continue;
    const schemeNames = Object.keys(alternative);
    for (const schemeName of schemeNames) {
      const auth = toAuth(context.securitySchemes[schemeName], alternative[schemeName]);
      if (auth !== undefined) {
        if (schemeNames.length > 1) {
          context.warnings.add(`Security requirement ${schemeNames.join(" + ")} needs several credentials; only "${schemeName}" is used.`);
        }
        return auth;
      }
      context.warnings.add(
        `Security scheme "${schemeName}" (${describeScheme(context.securitySchemes[schemeName])}) is not supported; operations using it are imported without auth.`,
      );
    }
  }
  return undefined;
}

function toAuth(scheme: unknown, requiredScopes: unknown): AuthRequirement | undefined {
  if (!isRecord(scheme)) return undefined;
  if (scheme.type === "oauth2" || scheme.type === "openIdConnect") {
    const scopes = asArray(requiredScopes)
      .filter((s): s is string => typeof s === "string" && s.length <= 500)
      .slice(0, 200);
    const tokenUrl = scheme.type === "oauth2" ? dig(scheme, ["flows", "clientCredentials", "tokenUrl"]) : undefined;
    return {
      scheme: "oauth2",
      in: "header",
      ...(scopes.length > 0 ? { scopes } : {}),
      ...(typeof tokenUrl === "string" && isAbsoluteHttpUrl(tokenUrl) ? { tokenUrl } : {}),
    };
  }
  if (scheme.type === "apiKey" && (scheme.in === "header" || scheme.in === "query") && typeof scheme.name === "string" && scheme.name !== "") {
    return { scheme: "apiKey", in: scheme.in, name: scheme.name };
  }
  if (scheme.type === "http" && typeof scheme.scheme === "string" && scheme.scheme.toLowerCase() === "bearer") {
    return { scheme: "bearer", in: "header" };
  }
  return undefined;
}

function describeScheme(scheme: unknown): string {
  if (!isRecord(scheme)) return "undefined";
  const parts = [scheme.type, scheme.scheme, scheme.in].filter((p): p is string => typeof p === "string");
  return parts.join(" ") || "unknown type";
}

function tagsOf(tags: unknown, label: string, warnings: Warnings): string[] {
  const list = asArray(tags).filter((t): t is string => typeof t === "string");
  if (list.length > LIMITS.tags) warnings.add(`${label}: only the first ${LIMITS.tags} tags are kept.`);
  return list.slice(0, LIMITS.tags);
}

// ---------------------------------------------------------------------------------------------
// Small helpers

function checkServerOverride(serverUrl: string): string {
  if (!isAbsoluteHttpUrl(serverUrl)) {
    throw new ToolImportError("invalid_option", `serverUrl "${serverUrl}" must be an absolute http(s) URL such as https://api.example.com/v1.`);
  }
  return stripTrailingSlash(serverUrl);
}

function isAbsoluteHttpUrl(url: string): boolean {
  if (!/^https?:\/\/[^/?#\s]+/i.test(url)) return false;
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
}

function stripTrailingSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

function pathTemplateNames(path: string): string[] {
  return [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1] ?? "").filter((n) => n !== "");
}

function firstMediaSchema(content: unknown): unknown {
  if (!isRecord(content)) return undefined;
  const first = Object.values(content)[0];
  return isRecord(first) ? first.schema : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function clip(value: string, max: number, what: string, warnings: Warnings): string {
  if (value.length <= max) return value;
  warnings.add(`${what} is longer than ${max} characters; shortened.`);
  return `${value.slice(0, max - 1)}…`;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return `a ${typeof value}`;
}

function describeZodError(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ");
}

function dig(value: unknown, keys: string[]): unknown {
  let current = value;
  for (const key of keys) current = isRecord(current) ? current[key] : undefined;
  return current;
}
