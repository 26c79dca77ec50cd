/**
 * Tenant API keys: `atc_<tenantId>_<secret>`. The tenant id inside the key tells the Worker which
 * Durable Object to ask; only the SHA-256 of the whole key is stored there, so a leaked database
 * reveals no usable key. Keys are 190 bits of randomness: a plain hash is enough (no KDF).
 */

export const KEY_PREFIX = "atc_";
const SECRET_LENGTH = 32;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Tenant ids: lowercase letters, digits and dashes; no `_`, so keys split unambiguously. */
export const TENANT_ID_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,38}[a-z0-9])$/;

/** Random base62 string of the given length (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const byte of bytes) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A new key for a tenant, with the part that may be shown later. */
export function generateApiKey(tenantId: string): { key: string; prefix: string } {
  const key = `${KEY_PREFIX}${tenantId}_${randomBase62(SECRET_LENGTH)}`;
  return { key, prefix: displayPrefix(key) };
}

/** What lists show of a key: enough to recognise it, useless to an attacker. */
export function displayPrefix(key: string): string {
  const secretStart = key.lastIndexOf("_") + 1;
  return key.slice(0, secretStart + 6);
}

/** The tenant a key claims to belong to, or undefined when the key is not of our shape. */
export function tenantOfKey(key: string): string | undefined {
  if (!key.startsWith(KEY_PREFIX)) return undefined;
  const rest = key.slice(KEY_PREFIX.length);
  const split = rest.lastIndexOf("_");
  if (split <= 0) return undefined;
  const tenantId = rest.slice(0, split);
  const secret = rest.slice(split + 1);
  if (!TENANT_ID_PATTERN.test(tenantId) || secret.length !== SECRET_LENGTH) return undefined;
  return tenantId;
}

/** Hex SHA-256 of a string. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Compare two equal-length strings without an early exit, so timing tells nothing. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  let diff = left.length ^ right.length;
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    diff |= (left[i] ?? 0) ^ (right[i] ?? 0);
  }
  return diff === 0;
}
