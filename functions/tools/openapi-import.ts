import { HttpMethod, ToolDefinition } from "./definition";
import { apiTitleOf } from "./api-info";
import { importFailure } from "./import-error";
import type { DocumentContext } from "./openapi-document";
import { copyInput, dereferenceDocument, parseText, toOpenApi31 } from "./openapi-loading";
import { buildTool } from "./openapi-operation";
import { checkServerOverride } from "./openapi-servers";
import { isRecord, Warnings } from "./schema-copier";
import { NameRegistry, nameFromOperation, toIdentifier } from "./tool-names";
import { repairReferences } from "./reference-repair";

export { importFailure, importIssues, isImportFailure, type ToolImportCode } from "./import-error";
export { documentedResponse } from "./openapi-responses";

/**
 * OpenAPI 3.0 / 3.1 (and Swagger 2.0, upgraded) → ToolDefinition[].
 *
 * Everything is first upgraded to OpenAPI 3.1 with @scalar/openapi-parser, so schemas come out in
 * one dialect (3.0 `nullable` → `type: [x, "null"]`, schema `example` → `examples: [x]`).
 * Only `upgrade` and `dereference` are used: the parser's `validate` compiles Ajv schemas with
 * `new Function`, which workerd forbids.
 *
 * This module walks the operations and names the tools; openapi-loading.ts reads and upgrades the
 * document, openapi-operation.ts builds one tool (its server URL from openapi-servers.ts, auth
 * from openapi-security.ts, response from openapi-responses.ts).
 */

export type ImportResult = { tools: ToolDefinition[]; warnings: string[] };

export type OpenApiImportOptions = {
  /** Absolute base URL used for every tool instead of the document's `servers`. */
  serverUrl?: string;
  /** Names already given to tools of the same document (a background import's earlier batches): never handed out again. */
  reservedNames?: Iterable<string>;
  /** Where the document was fetched from (an import by URL): a relative server URL is resolved against it, as OpenAPI says. */
  documentUrl?: string;
};

const OPENAPI_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

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
    throw importFailure("no_operations", "The document has no operations: its `paths` is empty or missing.");
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
    throw importFailure("no_operations", "None of the document's operations could be imported.", warnings.list());
  }
  return { tools, warnings: warnings.list() };
}

function describeZodError(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ");
}
