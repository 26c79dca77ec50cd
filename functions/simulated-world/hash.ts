// FNV-1a is enough here: the world needs stable, well-spread numbers from request text, not
// secrecy, and a synchronous hash keeps generation free of crypto.subtle's promises.

/** 32-bit FNV-1a hash of a string (UTF-16 code units), as an unsigned integer. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A deterministic lowercase hex string of `length` characters derived from `seed`. */
export function hexFrom(seed: string, length: number): string {
  let out = "";
  for (let round = 0; out.length < length; round++) {
    out += fnv1a(`${seed}#${round}`).toString(16).padStart(8, "0");
  }
  return out.slice(0, length);
}
