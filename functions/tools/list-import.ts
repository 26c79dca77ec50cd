import { ToolDefinition } from "./definition";
import { importFailure } from "./import-error";
import { ItemInput, unwrapList, warnUnknownFields } from "./list-input";
import { buildItem, headerRoles, itemLabel, type ListContext } from "./list-item";
import type { ImportResult } from "./openapi-import";
import { isRecord, type Json } from "./schema-copier";
import { isToolName, NameRegistry, nameFromOperation, toIdentifier } from "./tool-names";

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
 *
 * This module names the items and validates each tool; list-input.ts reads the list's shape,
 * list-item.ts builds an item (list-location.ts: where it is called; list-parameters.ts: its
 * parameters).
 */

export type ListImportOptions = {
  /** Skip invalid items, each reported as a warning (default), or reject the whole list (false). */
  skipInvalid?: boolean;
};

/** Import a bare tool list (or autotools `{servers, headers, endpoints}`); throws an import failure listing each bad item and field. */
export function importToolList(list: unknown, options: ListImportOptions = {}): ImportResult {
  const warnings: string[] = [];
  const { items, servers, headers } = unwrapList(list);
  if (items.length === 0) throw importFailure("invalid_list", "The tool list is empty.");
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
      throw importFailure("invalid_list", `The tool list is invalid: ${shown}${more}.`, issues);
    }
    warnings.push(...issues.map((issue) => `skipped ${issue}`));
  }
  if (tools.length === 0) throw importFailure("invalid_list", "No item of the tool list could be imported.", issues);
  return { tools, warnings };
}

function fieldPath(path: PropertyKey[]): string {
  let out = "";
  for (const part of path) out += typeof part === "number" ? `[${part}]` : `${out === "" ? "" : "."}${String(part)}`;
  return out === "" ? "(item)" : out;
}

function nameOf(item: unknown): string | undefined {
  return isRecord(item) && typeof item.name === "string" ? item.name : undefined;
}
