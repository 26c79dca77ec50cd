import { apiTitleOf } from "./api-info";
import type { AuthRequirement, ToolParameter } from "./definition";
import type { ItemInput } from "./list-input";
import { resolveLocation } from "./list-location";
import { pathTemplateNames } from "./url-template";
import { toParameter } from "./list-parameters";
import { documentedResponse } from "./openapi-responses";
import { requestBodyParameters } from "./request-body";
import { isRecord, type Json, SchemaCopier, Warnings } from "./schema-copier";

/**
 * One parsed list item → a candidate tool definition, its name aside (list-import.ts names the
 * items and validates what this builds): where it is called, its parameters (the path template's,
 * the list-wide fixed headers, an OpenAPI-style `requestBody`'s) and its documented response.
 */

/** What the whole list gives each item: its declared servers, list-wide headers, and where warnings go. */
export type ListContext = {
  servers: string[];
  fixedHeaders: [string, string][];
  auth: AuthRequirement | undefined;
  warnings: string[];
};

/**
 * Splits list-wide headers into the credential (its value is a placeholder or a secret, never
 * kept: credentials are stored apart) and fixed headers, which become optional header parameters
 * whose schema `default` is the value to send.
 */
export function headerRoles(headers: Json, warnings: string[]): { auth: AuthRequirement | undefined; fixedHeaders: [string, string][] } {
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

export function buildItem(item: ItemInput, index: number, context: ListContext, report: (issue: string) => void): Json | undefined {
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

/** How warnings and issues name an item: its index, and its name when it has one. */
export function itemLabel(index: number, name: string | undefined): string {
  return name === undefined ? `item ${index}` : `item ${index} (${name})`;
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
