/**
 * Keeps the injected secret out of everything safe-call returns. The secret can come back in more
 * places than the URL we built: an upstream may echo the query string or headers in its body, put
 * it in a redirect Location, or in an error message. So every string leaving safe-call is scrubbed.
 */

export const REDACTED = "[REDACTED]";

export interface Redactor {
  /** Replaces every spelling of the secret in a string. */
  text(value: string): string;
  /** Deep-copies JSON-like data with every string (and key) scrubbed. */
  data(value: unknown): unknown;
  /** Cuts a trailing partial secret left by truncation (only prefixes of 4+ characters). */
  trimPartial(value: string): string;
}

/** A redactor for one secret; with no secret it returns values unchanged. */
export function redactorFor(secret: string | undefined): Redactor {
  if (secret === undefined || secret === "") {
    return { text: (v) => v, data: (v) => v, trimPartial: (v) => v };
  }
  // The spellings the secret can take on the wire: raw, percent-encoded, form-encoded.
  const forms = [...new Set([secret, encodeURIComponent(secret), new URLSearchParams({ k: secret }).toString().slice(2)])].sort((a, b) => b.length - a.length);
  const text = (value: string): string => forms.reduce((acc, form) => acc.split(form).join(REDACTED), value);
  const data = (value: unknown): unknown => {
    if (typeof value === "string") return text(value);
    if (Array.isArray(value)) return value.map(data);
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [text(k), data(v)]));
    }
    return value;
  };
  const trimPartial = (value: string): string => {
    for (const form of forms) {
      for (let n = Math.min(form.length - 1, value.length); n >= 4; n--) {
        if (value.endsWith(form.slice(0, n))) return value.slice(0, value.length - n) + REDACTED;
      }
    }
    return value;
  };
  return { text, data, trimPartial };
}
