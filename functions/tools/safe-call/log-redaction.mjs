// Log redaction, shared by the Worker (TypeScript imports it with log-redaction.d.mts) and by
// `npm start`, which passes wrangler's own request log through it. Plain JavaScript so Node runs
// it without a build step. Nothing the service logs may contain a credential.

export const REDACTED = "[REDACTED]";

/** Query parameter and header names that carry credentials (matched as whole words, any case). */
const SECRET_NAME =
  /(^|[^a-z])(api[-_]?key|apikey|key|token|access[-_]?token|refresh[-_]?token|id[-_]?token|secret|client[-_]?secret|password|passwd|pwd|auth|authorization|signature|sig|session|cookie|credential|credentials|x[-_]api[-_]?key)([^a-z]|$)/i;

/** Whether a query parameter or header name looks like it carries a credential. */
export function isSecretName(name) {
  return SECRET_NAME.test(name.toLowerCase());
}

/** A URL with credential-looking query values and any user:password@ replaced. */
export function redactUrl(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return redactText(url);
  }
  if (parsed.username !== "" || parsed.password !== "") {
    parsed.username = "REDACTED";
    parsed.password = "";
  }
  // Rebuilt by hand: URLSearchParams would re-encode the redaction marker.
  const query = parsed.search
    .slice(1)
    .split("&")
    .filter((pair) => pair !== "")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, " "));
      } catch {
        // keep the raw name
      }
      return eq >= 0 && isSecretName(decoded) ? `${name}=${REDACTED}` : pair;
    });
  const search = query.length === 0 ? "" : `?${query.join("&")}`;
  return `${parsed.protocol}//${parsed.username === "" ? "" : `${parsed.username}@`}${parsed.host}${parsed.pathname}${search}${parsed.hash}`;
}

/** Headers as a plain object, credential-carrying values replaced. */
export function redactHeaders(headers) {
  const out = {};
  for (const [name, value] of headers instanceof Headers ? headers.entries() : Object.entries(headers)) {
    out[name] = isSecretName(name) ? REDACTED : value;
  }
  return out;
}

const URL_IN_TEXT = /\bhttps?:\/\/[^\s"'<>`]+/gi;
const QUERY_IN_PATH = /(^|\s)(\/[^\s?"'<>`]*\?[^\s"'<>`]+)/g;
const BEARER = /\b(Bearer|Basic)\s+[^\s"',;]+/gi;
const KNOWN_KEYS = /\b(atc_[a-z0-9-]+_)[A-Za-z0-9]{8,}|\b(sk-|whsec_)[A-Za-z0-9_\-+/=]{8,}/g;
const NAMED_SECRET = /("?)([A-Za-z0-9_-]*(?:api[-_]?key|apikey|token|secret|password|authorization)[A-Za-z0-9_-]*)\1(\s*[:=]\s*)("?)[^\s"',;&]+/gi;

/** Free text (a log line, an error message) with URLs, bearer values and known key shapes scrubbed. */
export function redactText(text) {
  return String(text)
    .replace(URL_IN_TEXT, (url) => redactUrl(url))
    .replace(QUERY_IN_PATH, (_m, lead, path) => lead + redactUrl(`http://x${path}`).slice("http://x".length))
    .replace(BEARER, (_m, scheme) => `${scheme} ${REDACTED}`)
    .replace(KNOWN_KEYS, (_m, atc, other) => `${atc ?? other}${REDACTED}`)
    .replace(NAMED_SECRET, (_m, q, name, sep, vq) => `${q}${name}${q}${sep}${vq}${REDACTED}`);
}
