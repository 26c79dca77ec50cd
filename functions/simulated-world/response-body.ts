import { isRecord, recordAt } from "./json";
import { resolveRef } from "./refs";
import type { OperationBody } from "./types";

/** The success body an OpenAPI response object describes: its JSON example, else its JSON schema. */
export function bodyFromResponseObject(response: unknown, document: unknown): OperationBody {
  const content = recordAt(resolveRef(document, response), "content");
  if (content === undefined || Object.keys(content).length === 0) return { kind: "empty" };
  const media = jsonMedia(content);
  if (media === undefined) return { kind: "none" };
  const examples = recordAt(media, "examples");
  for (const entry of Object.values(examples ?? {})) {
    const example = resolveRef(document, entry);
    if (isRecord(example) && "value" in example) return { kind: "example", value: example["value"] };
  }
  if ("example" in media) return { kind: "example", value: media["example"] };
  const schema = media["schema"];
  return isRecord(schema) ? { kind: "schema", schema } : { kind: "none" };
}

/** Picks the success response of an OpenAPI `responses` map: lowest 2xx, then `2XX`, then `default`. */
export function successResponse(responses: unknown): { status: number; response: unknown } | undefined {
  if (!isRecord(responses)) return undefined;
  const codes = Object.keys(responses)
    .filter((code) => /^2\d\d$/.test(code))
    .sort();
  const first = codes[0];
  if (first !== undefined) return { status: Number(first), response: responses[first] };
  for (const key of ["2XX", "2xx", "default"]) {
    if (key in responses) return { status: 200, response: responses[key] };
  }
  return undefined;
}

function jsonMedia(content: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (content === undefined) return undefined;
  const exact = recordAt(content, "application/json");
  if (exact !== undefined) return exact;
  // Vendor types such as application/problem+json or application/json;charset=utf-8.
  const key = Object.keys(content).find((type) => /[/+]json\b/i.test(type));
  return key === undefined ? undefined : recordAt(content, key);
}
