import { z } from "zod";
import { guardedFetch, isGuardedFetchFailure } from "./safe-call/guarded-fetch";
import { redactorFor } from "./safe-call/redact";
import type { FetchFn, NameResolver } from "./safe-call/types";

/**
 * OAuth 2 client-credentials grant (RFC 6749 §4.4): the service trades a tenant's stored client
 * id and secret for an access token at the token URL, through the same destination guard, deadline
 * and byte cap as a tool call. The client authenticates with HTTP Basic (§2.3.1, which every
 * server must support). The secret is never part of a result or an error message.
 */

/** What a client-credentials credential holds, sealed as one JSON value. */
export const ClientCredentials = z
  .object({
    clientId: z.string().min(1).max(1_000),
    clientSecret: z.string().min(1).max(8_192),
    tokenUrl: z.string().url().optional(),
    scopes: z.array(z.string().min(1).max(200)).max(100).optional(),
  })
  .strict();
export type ClientCredentials = z.infer<typeof ClientCredentials>;

const TokenResponse = z.object({
  access_token: z.string().min(1).max(16_384),
  token_type: z.string().optional(),
  expires_in: z.union([z.number(), z.string().regex(/^\d+$/)]).optional(),
});

/** When the server says nothing about expiry, the token is reused for this long. */
const DEFAULT_LIFETIME_SECONDS = 3_600;
/** A token this close to expiry is not used: a call could reach the API after it expired. */
export const TOKEN_EXPIRY_MARGIN_MS = 60_000;
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

export interface TokenFetchOptions {
  fetch: FetchFn;
  allowedOrigins?: Record<string, { fetch: FetchFn }> | undefined;
  resolveName?: NameResolver | undefined;
  timeoutMs: number;
  /** Milliseconds since the epoch; injectable so expiry can be tested without waiting. */
  now?: () => number;
}

export type TokenOutcome = { ok: true; token: string; expiresAt: number } | { ok: false; message: string };

/** Fetch a new access token; failures are values whose message names the token URL, never the secret. */
export async function fetchClientCredentialsToken(credentials: ClientCredentials, tokenUrl: string, options: TokenFetchOptions): Promise<TokenOutcome> {
  const redact = redactorFor(credentials.clientSecret);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const form = new URLSearchParams({ grant_type: "client_credentials" });
  if (credentials.scopes !== undefined && credentials.scopes.length > 0) form.set("scope", credentials.scopes.join(" "));
  // RFC 6749 §2.3.1: id and secret are form-encoded before they are joined for Basic.
  const basic = btoa(`${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`);
  const fetchGuarded = guardedFetch({
    fetch: options.fetch,
    allowedOrigins: options.allowedOrigins,
    resolveName: options.resolveName,
    signal: controller.signal,
    maxResponseBytes: MAX_TOKEN_RESPONSE_BYTES,
    credentialHeader: "Authorization",
  });
  try {
    const response = await fetchGuarded(tokenUrl, {
      method: "POST",
      headers: { Authorization: `Basic ${basic}`, "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: form.toString(),
    });
    const text = await response.text();
    if (!response.ok) return { ok: false, message: `the token endpoint ${tokenUrl} answered HTTP ${response.status}${oauthErrorCode(text)}` };
    const parsed = TokenResponse.safeParse(parseJson(text));
    if (!parsed.success) return { ok: false, message: `the token endpoint ${tokenUrl} answered without an access_token` };
    const lifetime = parsed.data.expires_in === undefined ? DEFAULT_LIFETIME_SECONDS : Number(parsed.data.expires_in);
    return { ok: true, token: parsed.data.access_token, expiresAt: (options.now ?? Date.now)() + lifetime * 1_000 };
  } catch (error) {
    if (controller.signal.aborted) return { ok: false, message: `the token endpoint ${tokenUrl} gave no answer within ${options.timeoutMs} ms` };
    const detail = isGuardedFetchFailure(error) ? error.message : "the request failed";
    return { ok: false, message: redact.text(`the token endpoint ${tokenUrl} could not be reached: ${detail}`) };
  } finally {
    clearTimeout(timer);
  }
}

/** A token that may still be used at `now`. */
export function tokenUsable(expiresAt: number, now: number): boolean {
  return expiresAt - TOKEN_EXPIRY_MARGIN_MS > now;
}

/** The RFC 6749 §5.2 `error` code of an error answer (never its free-text description). */
function oauthErrorCode(text: string): string {
  const body = parseJson(text);
  const code = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
  return typeof code === "string" && /^[\w.-]{1,60}$/.test(code) ? ` (${code})` : "";
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
