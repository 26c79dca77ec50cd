/**
 * Standard Webhooks (https://www.standardwebhooks.com/) signing and verification with Web Crypto
 * only, so it runs in workerd as well as in Node.
 *
 * A delivery carries three headers:
 *   webhook-id         a unique message id (idempotency key), 1..256 visible ASCII characters
 *   webhook-timestamp  unix seconds, a plain decimal integer
 *   webhook-signature  space-separated `v1,<base64 HMAC-SHA256>` entries
 * and the MAC is computed over the bytes of `{id}.{timestamp}.{body}`, keyed with the bytes of a
 * `whsec_<base64>` secret after base64-decoding. A delivery is authentic when ANY `v1` entry
 * matches ANY of the currently valid secrets (secret rotation); entries of other versions are
 * ignored. Signatures are compared in constant time.
 */

export const WEBHOOK_ID_HEADER = "webhook-id";
export const WEBHOOK_TIMESTAMP_HEADER = "webhook-timestamp";
export const WEBHOOK_SIGNATURE_HEADER = "webhook-signature";
export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** Five minutes, in both directions, as the specification recommends. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/** The specification asks for secrets of 24 to 64 bytes; we generate 32. */
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
const GENERATED_SECRET_BYTES = 32;
const MAX_ID_LENGTH = 256;
/** HMAC-SHA-256 output length. */
const MAC_BYTES = 32;

/** A `Headers` object, or a plain record whose names are matched case-insensitively. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * The request body exactly as received. Prefer the raw bytes (`await request.arrayBuffer()`): a
 * string from `request.text()` has already lost a leading byte-order mark and any invalid UTF-8.
 */
export type WebhookBody = string | Uint8Array | ArrayBuffer;

export type WebhookFailureReason =
  | "missing_headers"
  | "invalid_timestamp"
  | "timestamp_too_old"
  | "timestamp_in_future"
  | "no_valid_signature"
  | "invalid_secret";

export type WebhookVerification = { ok: true; id: string; timestamp: number } | { ok: false; reason: WebhookFailureReason; message: string };

export interface VerifyWebhookInput {
  headers: WebhookHeaders;
  body: WebhookBody;
  /** The tenant's currently valid secrets, each `whsec_<base64>`; several during a rotation. */
  secrets: readonly string[];
  /** The current time in unix seconds; a fractional value is floored. */
  nowSeconds: number;
  /** Allowed clock difference in either direction, in seconds (default 300). */
  toleranceSeconds?: number;
}

// ---------------------------------------------------------------------------------------------
// base64 and bytes

const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Strict, canonical, padded standard base64, or null; never throws. */
function decodeBase64(text: string): Uint8Array | null {
  if (!BASE64_PATTERN.test(text)) return null;
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return null;
  }
  const bytes = Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  // Reject non-zero padding bits, so one MAC has exactly one accepted spelling.
  return encodeBase64(bytes) === text ? bytes : null;
}

function bodyBytes(body: WebhookBody): Uint8Array {
  if (typeof body === "string") return new TextEncoder().encode(body);
  if (body instanceof Uint8Array) return body;
  return new Uint8Array(body);
}

/** The signed content: UTF-8 of `{id}.{timestamp}.` followed by the body bytes. */
function signedContent(id: string, timestamp: number, body: WebhookBody): Uint8Array {
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const payload = bodyBytes(body);
  const content = new Uint8Array(prefix.length + payload.length);
  content.set(prefix, 0);
  content.set(payload, prefix.length);
  return content;
}

/** Equal-length comparison whose time does not depend on where the inputs differ. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

// ---------------------------------------------------------------------------------------------
// secrets, ids, timestamps

/** The HMAC key bytes of a `whsec_<base64>` secret, or null when it is malformed. */
function secretKeyBytes(secret: string): Uint8Array | null {
  if (typeof secret !== "string" || !secret.startsWith(WEBHOOK_SECRET_PREFIX)) return null;
  const key = decodeBase64(secret.slice(WEBHOOK_SECRET_PREFIX.length));
  if (key === null || key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES) return null;
  return key;
}

/** Whether `secret` is a well-formed `whsec_` secret (24..64 bytes of canonical base64). */
export function isValidWebhookSecret(secret: string): boolean {
  return secretKeyBytes(secret) !== null;
}

function importHmacKey(keyBytes: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

async function computeMac(key: CryptoKey, content: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, content));
}

/** 1..256 visible ASCII characters (no spaces or control characters). */
const ID_PATTERN = /^[\x21-\x7e]+$/;

function isValidId(id: string): boolean {
  return id.length >= 1 && id.length <= MAX_ID_LENGTH && ID_PATTERN.test(id);
}

/** A canonical non-negative decimal integer: no sign, fraction, exponent or leading zero. */
const TIMESTAMP_PATTERN = /^(?:0|[1-9][0-9]{0,14})$/;

function parseTimestamp(text: string): number | null {
  if (!TIMESTAMP_PATTERN.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

// ---------------------------------------------------------------------------------------------
// headers

/** HTTP whitespace, as `Headers` strips it from both ends of a value. */
function trimHttpWhitespace(value: string): string {
  return value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
}

function isHeadersObject(headers: WebhookHeaders): headers is Headers {
  if (typeof Headers !== "undefined" && headers instanceof Headers) return true;
  // A Headers from another realm or polyfill: duck-typed (a record's string values are no functions).
  return typeof (headers as { get?: unknown }).get === "function";
}

/** One header's value, case-insensitively, trimmed; "" when absent. Duplicates join with ", ". */
function readHeader(headers: WebhookHeaders, name: string): string {
  if (isHeadersObject(headers)) {
    const value = headers.get(name);
    return typeof value === "string" ? trimHttpWhitespace(value) : "";
  }
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === "string") values.push(trimHttpWhitespace(value));
    else if (Array.isArray(value)) {
      for (const item of value as readonly unknown[]) {
        if (typeof item === "string") values.push(trimHttpWhitespace(item));
      }
    }
  }
  return values.join(", ");
}

/** The decoded `v1` MACs of a signature header; other versions and malformed entries are skipped. */
function v1Signatures(header: string): Uint8Array[] {
  const macs: Uint8Array[] = [];
  for (const entry of header.split(/[\t ]+/)) {
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== "v1") continue;
    const mac = decodeBase64(entry.slice(comma + 1));
    if (mac !== null && mac.length === MAC_BYTES) macs.push(mac);
  }
  return macs;
}

// ---------------------------------------------------------------------------------------------
// public API

/** A new secret: `whsec_` followed by the base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + encodeBase64(crypto.getRandomValues(new Uint8Array(GENERATED_SECRET_BYTES)));
}

/**
 * The `webhook-signature` entry (`v1,<base64>`) for one delivery. Throws a TypeError on a
 * malformed secret, id or timestamp, so a sender never emits a delivery no receiver accepts.
 */
export async function signWebhook(secret: string, id: string, timestampSeconds: number, body: WebhookBody): Promise<string> {
  const keyBytes = secretKeyBytes(secret);
  if (keyBytes === null) {
    throw new TypeError(`webhook secret must be "${WEBHOOK_SECRET_PREFIX}" followed by the base64 of ${MIN_SECRET_BYTES}..${MAX_SECRET_BYTES} bytes`);
  }
  if (!isValidId(id)) throw new TypeError(`webhook id must be 1..${MAX_ID_LENGTH} visible ASCII characters`);
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new TypeError("webhook timestamp must be a non-negative integer number of unix seconds");
  }
  const mac = await computeMac(await importHmacKey(keyBytes), signedContent(id, timestampSeconds, body));
  return `v1,${encodeBase64(mac)}`;
}

function failure(reason: WebhookFailureReason, message: string): WebhookVerification {
  return { ok: false, reason, message };
}

/**
 * Verify one delivery. Never throws for anything a sender controls (headers, body); throws a
 * RangeError only for a caller error in `nowSeconds` or `toleranceSeconds`.
 *
 * Checks, in order: the secrets (`invalid_secret` when none is given or any is malformed — a
 * configuration error, reported before looking at the request), the three headers and the id
 * (`missing_headers`), the timestamp (`invalid_timestamp`, `timestamp_too_old`,
 * `timestamp_in_future`), then the signatures (`no_valid_signature`).
 */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<WebhookVerification> {
  const { headers, body, secrets, nowSeconds } = input;
  const toleranceSeconds = input.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  if (!Number.isFinite(nowSeconds)) throw new RangeError("nowSeconds must be a finite number");
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new RangeError("toleranceSeconds must be a finite, non-negative number");
  }

  if (secrets.length === 0) return failure("invalid_secret", "no webhook secret is configured");
  const keys: Uint8Array[] = [];
  for (const [index, secret] of secrets.entries()) {
    const keyBytes = secretKeyBytes(secret);
    if (keyBytes === null) {
      return failure(
        "invalid_secret",
        `webhook secret #${index + 1} is not "${WEBHOOK_SECRET_PREFIX}" followed by the base64 of ${MIN_SECRET_BYTES}..${MAX_SECRET_BYTES} bytes`,
      );
    }
    keys.push(keyBytes);
  }

  const id = readHeader(headers, WEBHOOK_ID_HEADER);
  const timestampText = readHeader(headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatureHeader = readHeader(headers, WEBHOOK_SIGNATURE_HEADER);
  const missing = [
    [WEBHOOK_ID_HEADER, id],
    [WEBHOOK_TIMESTAMP_HEADER, timestampText],
    [WEBHOOK_SIGNATURE_HEADER, signatureHeader],
  ]
    .filter(([, value]) => value === "")
    .map(([name]) => name);
  if (missing.length > 0) return failure("missing_headers", `missing or empty header(s): ${missing.join(", ")}`);
  if (!isValidId(id)) {
    return failure("missing_headers", `${WEBHOOK_ID_HEADER} must be 1..${MAX_ID_LENGTH} visible ASCII characters`);
  }

  const timestamp = parseTimestamp(timestampText);
  if (timestamp === null) {
    return failure("invalid_timestamp", `${WEBHOOK_TIMESTAMP_HEADER} must be an integer number of unix seconds`);
  }
  const age = Math.floor(nowSeconds) - timestamp;
  if (age > toleranceSeconds) {
    return failure("timestamp_too_old", `${WEBHOOK_TIMESTAMP_HEADER} is ${age} s old; at most ${toleranceSeconds} s allowed`);
  }
  if (-age > toleranceSeconds) {
    return failure("timestamp_in_future", `${WEBHOOK_TIMESTAMP_HEADER} is ${-age} s in the future; at most ${toleranceSeconds} s allowed`);
  }

  const candidates = v1Signatures(signatureHeader);
  if (candidates.length === 0) {
    return failure("no_valid_signature", `${WEBHOOK_SIGNATURE_HEADER} holds no well-formed v1 signature`);
  }
  const content = signedContent(id, timestamp, body);
  let matched = false;
  for (const keyBytes of keys) {
    const expected = await computeMac(await importHmacKey(keyBytes), content);
    // No early exit: every candidate is compared against every secret's MAC.
    for (const candidate of candidates) matched = constantTimeEqual(candidate, expected) || matched;
  }
  if (!matched) return failure("no_valid_signature", "no v1 signature matches a current webhook secret");
  return { ok: true, id, timestamp };
}
