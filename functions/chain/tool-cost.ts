import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import type { ToolDefinition } from "../tools/definition";
import { renderToolSignature, type ProtocolOverrides } from "./typed-api";

/**
 * What one tool costs in a run's prompt: the tokens of exactly what the program-writing prompt
 * shows for it (its typed signature with the short description, rendered by typed-api.ts),
 * counted with a real tokenizer (o200k_base, the GPT-4o family's). Candidate-set budgets are
 * spent on this, not on the stored definition with its response schemas.
 *
 * The tokenizer's tables take most of a second to build, so they are built once per isolate, on
 * first use (only run candidate sets use this, never the routing hot path); counts are cached per
 * tool definition hash and description override.
 */

let encoder: Tiktoken | undefined;
const CACHE_LIMIT = 20_000;
const cache = new Map<string, number>();

function tokenizer(): Tiktoken {
  encoder ??= new Tiktoken(o200kBase);
  return encoder;
}

/** Tokens of a text with the real tokenizer. */
export function countTokens(text: string): number {
  return tokenizer().encode(text).length;
}

/**
 * Tokens the run prompt spends on `def` (definition content hash `hash`), with the protocol
 * overrides the prompt would apply. Cached per hash and overrides.
 */
export function toolPromptTokens(def: ToolDefinition, hash: string, overrides: ProtocolOverrides = {}): number {
  const key = `${hash}\u0000${overrides.description ?? ""}\u0000${overrides.responseSchema === undefined ? "" : JSON.stringify(overrides.responseSchema)}\u0000${overrides.example?.query ?? ""}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  const tokens = countTokens(renderToolSignature(def, overrides));
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, tokens);
  return tokens;
}
