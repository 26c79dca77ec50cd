import { z } from "zod";
import { AuthRequirement, HttpMethod, JsonSchema } from "./definition";
import { importFailure } from "./import-error";
import { stripTrailingSlash } from "./url-template";
import { isRecord, type Json } from "./schema-copier";

/**
 * What a bare tool list is made of, as the list import reads it (list-import.ts): the wrapper
 * around the items (an array, `{ tools }` or autotools' `{ servers, headers, endpoints }`), the
 * shape of an item and of its parameters, and the fields no item of the format has.
 */

export const ParameterInput = z
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
export type ParameterInput = z.infer<typeof ParameterInput>;

export const ItemInput = z
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
export type ItemInput = z.infer<typeof ItemInput>;

/** Fields an item may carry that are not ours, and that we ignore without a warning. */
const QUIET_EXTRA_FIELDS = new Set(["operation"]);
const KNOWN_FIELDS = new Set([...Object.keys(ItemInput.shape), ...QUIET_EXTRA_FIELDS]);

/** The items of a list and, in the autotools format, its servers (with a scheme, no trailing slash) and list-wide headers. */
export function unwrapList(list: unknown): { items: unknown[]; servers: string[]; headers: Json } {
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
  throw importFailure(
    "invalid_list",
    "Expected a list of tools: an array of {name, method, url, parameters} items, or an object with `tools` or `endpoints` (autotools format).",
  );
}

/** One warning per field no item of the format has (`_`-prefixed and quiet ones aside), naming the first items that carry it. */
export function warnUnknownFields(items: unknown[], warnings: string[]): void {
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
