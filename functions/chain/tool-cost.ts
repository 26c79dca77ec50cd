import { countTokens } from "../text/token-count";
import type { ToolDefinition } from "../tools/definition";
import { renderToolSignature, type ProtocolOverrides } from "./typed-api";

/**
 * What one tool costs in a run's prompt: the tokens of exactly what the program-writing prompt
 * shows for it (its typed signature with the short description, rendered by typed-api.ts),
 * counted with the real tokenizer (o200k_base, text/token-count.ts). Candidate-set budgets
 * are spent on this, not on the stored definition with its response schemas. A tenant stores the
 * count of each tool as registered or as its protocol describes it, with the tool's routing views
 * (storage/tenant-tool-views.ts); elsewhere counts are cached per definition hash and
 * protocol overrides.
 */

const CACHE_LIMIT = 20_000;
const cache = new Map<string, number>();

/**
 * Tokens the run prompt spends on `def` (definition content hash `hash`), with the protocol
 * overrides the prompt would apply. Cached per hash and overrides.
 */
export function toolPromptTokens(def: ToolDefinition, hash: string, overrides: ProtocolOverrides = {}): number {
  const key = `${hash}\u0000${overrides.description ?? ""}\u0000${overrides.responseSchema === undefined ? "" : JSON.stringify(overrides.responseSchema)}\u0000${overrides.example?.query ?? ""}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  const tokens = signatureTokens(def, overrides);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, tokens);
  return tokens;
}

/** Tokens of the signature the run prompt shows for `def`, counted now (no cache). */
export function signatureTokens(def: ToolDefinition, overrides: ProtocolOverrides = {}): number {
  return countTokens(renderToolSignature(def, overrides));
}
