import { pathTemplateNames } from "./url-template";
import type { HttpMethod, ToolParameter } from "./definition";
import { asArray, ownExample, type DocumentContext } from "./openapi-document";
import { successResponse } from "./openapi-responses";
import { authFor } from "./openapi-security";
import { serverUrlFor } from "./openapi-servers";
import { requestBodyParameters, requiredFlag } from "./request-body";
import { isRecord, SchemaCopier, type Json, type Warnings } from "./schema-copier";

/** One OpenAPI operation → a candidate tool (checked against the tool format by the importer). */

/** Per the OpenAPI spec these header parameters are ignored: the HTTP layer sets them. */
const RESERVED_HEADERS = new Set(["accept", "content-type", "authorization"]);
const LIMITS = { summary: 1_000, description: 20_000, parameterDescription: 10_000, tags: 50 };

type OperationInput = {
  name: string;
  method: HttpMethod;
  path: string;
  pathItem: Json;
  operation: Json;
};

export function buildTool(context: DocumentContext, input: OperationInput): Record<string, unknown> {
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
    const example = ownExample(raw);
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

function tagsOf(tags: unknown, label: string, warnings: Warnings): string[] {
  const list = asArray(tags).filter((t): t is string => typeof t === "string");
  if (list.length > LIMITS.tags) warnings.add(`${label}: only the first ${LIMITS.tags} tags are kept.`);
  return list.slice(0, LIMITS.tags);
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
