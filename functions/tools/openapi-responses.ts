import { upgrade } from "@scalar/openapi-parser";
import type { JsonSchema } from "./definition";
import { dig, ownExample } from "./openapi-document";
import { isJsonMediaType } from "./request-body";
import { copyJson, isRecord, SchemaCopier, Warnings, type Json } from "./schema-copier";

/** What an operation answers: its success response's schema and example. */

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

/** `responseSchema` / `responseExample` of the success response: 200, else lowest 2xx, else `default`. */
export function successResponse(responses: unknown, copier: SchemaCopier): { responseSchema?: JsonSchema; responseExample?: unknown } {
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
  const own = ownExample(media);
  if (own !== undefined) return own;
  const schema = media.schema;
  if (isRecord(schema)) {
    if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
    if (schema.example !== undefined) return schema.example;
  }
  return undefined;
}
