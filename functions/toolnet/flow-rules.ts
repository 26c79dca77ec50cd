import { isIdLike, nameWords } from "../probing/vocabulary";
import type { ToolDefinition, ToolParameter } from "../tools/definition";

/**
 * Which tools and inputs data flow may link (data-flow.ts): what it reads of a tool (FlowTool),
 * which inputs another tool's output may fill, which only another tool can supply, which API
 * issues an identifier, and when a field is too common to name a record.
 */

/**
 * What data flow reads of a tool besides its outputs: its name, path, server and parameters —
 * the required ones whole, the others by name only (they are the producer's inputs, nothing more).
 */
export type FlowTool = Pick<ToolDefinition, "name" | "path" | "serverUrl" | "parameters">;

/** A tool's compact form for data flow (flowTool(def) links exactly as def does). */
export function flowTool(def: FlowTool): FlowTool {
  return {
    name: def.name,
    path: def.path,
    serverUrl: def.serverUrl,
    parameters: def.parameters.map((p) =>
      isFillable(p) ? { name: p.name, in: p.in, required: p.required, schema: p.schema } : { name: p.name, in: p.in, required: p.required, schema: {} },
    ),
  };
}

export function isFillable(parameter: ToolParameter): boolean {
  // Headers are credentials or fixed values; optional inputs do not make a tool depend on another.
  return parameter.required && parameter.in !== "header";
}

/**
 * Where a tool can stand in a chain, for ordering producers (data-flow.ts `DataFlowIndex`): 0 when
 * it needs no identifier and takes text (a lookup by name), 1 when it needs nothing, 2 when it
 * needs an identifier from another tool. Stored per tool beside a big catalog's flow state
 * (flow-samples-codec.ts), so ordering a consumer's thousands of candidates reads no tool.
 */
export function startRank(tool: Pick<FlowTool, "parameters">): 0 | 1 | 2 {
  const required = tool.parameters.filter(isFillable);
  if (required.some((p) => isIdLike(p.name))) return 2;
  return required.length > 0 ? 0 : 1;
}

/**
 * A field that at least this share of a tenant's tools return (`status`, `message`) names no
 * record: passing it on is not data flow, so it links tools only when it is an identifier
 * (identifiers link through their entity word, `person_id` ← `id` of a person search).
 */
export const GENERIC_FIELD_SHARE = 0.25;
/** With few tools every field is "common"; below this many producers no field is generic. */
export const MIN_GENERIC_PRODUCERS = 3;

/** Words of inputs whose values a task never writes out: only another tool's output supplies them. */
const OPAQUE_WORDS = new Set(["token"]);

/** True for an input a task cannot supply itself: an identifier (`person_id`) or a token. */
export function isOpaqueInput(name: string): boolean {
  return isIdLike(name) || nameWords(name).some((w) => OPAQUE_WORDS.has(w));
}

/**
 * An identifier is issued by its own API (its host): another API's `campaign_id` names a record
 * the consumer's API has never seen (StableToolBench's Fomo campaigns offered to Nexweave's
 * campaign lookup, pushing the task's own tools out). The host, not the whole server URL, is the
 * API: a tool listed later as `https://host/tmdb/person/{id}/awards` belongs with the tools of
 * `https://host/tmdb`. Tokens may cross: one API's login can serve others.
 */
export function sameIssuer(producer: FlowTool, consumer: FlowTool, parameter: string): boolean {
  return producer.serverUrl === consumer.serverUrl || !isIdLike(parameter) || hostOf(producer.serverUrl) === hostOf(consumer.serverUrl);
}

/** The host of a server URL (the URL itself when it has none). */
function hostOf(serverUrl: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(serverUrl);
  return match?.[1]?.toLowerCase() ?? serverUrl;
}
