import canonicalize from "canonicalize";
import type { z } from "zod";
import { ToolDefinition } from "./definition";

/**
 * Content hash of a tool definition: sha256 (hex) of its RFC 8785 canonical JSON, taken after
 * the zod parse so that omitted defaults and explicit defaults hash the same, and key order never
 * matters. Array order does (parameters, tags): it is part of what the definition says.
 */

/** sha256 hex of the canonical JSON of `def` (validated and defaults filled first). */
export async function contentHash(def: z.input<typeof ToolDefinition>): Promise<string> {
  const canonical = canonicalize(ToolDefinition.parse(def));
  if (canonical === undefined) throw new Error("tool definition has no JSON form");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
