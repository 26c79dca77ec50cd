import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { constantTimeEqual, randomBase62, sha256Hex, tenantOfKey } from "../../tenants/api-keys";
import { openSecret, sealSecret } from "../../tenants/credential-crypto";
import { credentialsKey, credentialsKeyIfSet } from "../../tenants/credentials-key";
import { tenantStub } from "../../tenant-api/tenant-api";

/**
 * The console's session: the tenant API key (or the admin token) the operator signed in with,
 * sealed with AES-256-GCM under a key derived from CREDENTIALS_KEY (the same HKDF derivation as
 * tool credentials, under a purpose no tenant id can take), so the cookie is both signed and
 * unreadable. It is HttpOnly, Secure and SameSite=Strict, and the page never shows the key
 * again. Every request re-checks the key with the tenant object, so revoking it ends the session.
 */

export const SESSION_COOKIE = "atc_console";
/** The HKDF "tenant" of console sessions: tenant ids cannot contain `:`, so no tenant shares the key. */
const SESSION_PURPOSE = "console:session";
const SESSION_RECORD = "v1";
const SESSION_HOURS = 8;

export type Session =
  | { kind: "tenant"; tenantId: string; key: string; csrf: string; expiresAt: number }
  | { kind: "admin"; token: string; csrf: string; expiresAt: number };

/** Seal a session into the cookie (HttpOnly, Secure, SameSite=Strict, path /console). */
export async function startSession<E extends { Bindings: Env }>(c: Context<E>, session: Session): Promise<void> {
  const sealed = await sealSecret(credentialsKey(c.env), SESSION_PURPOSE, SESSION_RECORD, JSON.stringify(session));
  setCookie(c, SESSION_COOKIE, `${sealed.iv}.${sealed.ciphertext}`, {
    path: "/console",
    httpOnly: true,
    secure: true,
    sameSite: "Strict",
    maxAge: SESSION_HOURS * 3600,
  });
}

export function endSession(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/console", secure: true, httpOnly: true, sameSite: "Strict" });
}

/** The session in the request's cookie, when it opens and has not expired; nothing is trusted otherwise. */
export async function readSession<E extends { Bindings: Env }>(c: Context<E>): Promise<Session | undefined> {
  const cookie = getCookie(c, SESSION_COOKIE);
  const secret = credentialsKeyIfSet(c.env);
  if (cookie === undefined || secret === undefined) return undefined;
  const [iv, ciphertext] = cookie.split(".");
  if (iv === undefined || ciphertext === undefined) return undefined;
  let session: Session;
  try {
    session = JSON.parse(await openSecret(secret, SESSION_PURPOSE, SESSION_RECORD, { iv, ciphertext })) as Session;
  } catch {
    return undefined; // tampered, or sealed under another CREDENTIALS_KEY
  }
  return session.expiresAt > Date.now() ? session : undefined;
}

/** A fresh session for a tenant key, when the key is valid now. */
export async function tenantSession(env: Env, key: string): Promise<Session | undefined> {
  const tenantId = tenantOfKey(key);
  if (tenantId === undefined) return undefined;
  if (!(await tenantStub(env, tenantId).registry.authenticate(await sha256Hex(key)))) return undefined;
  return { kind: "tenant", tenantId, key, csrf: randomBase62(32), expiresAt: Date.now() + SESSION_HOURS * 3600_000 };
}

/** A fresh admin session, when the token is the service's admin token. */
export function adminSession(env: Env, token: string): Session | undefined {
  const expected = env.ADMIN_TOKEN;
  if (expected === undefined || expected === "" || !constantTimeEqual(token, expected)) return undefined;
  return { kind: "admin", token, csrf: randomBase62(32), expiresAt: Date.now() + SESSION_HOURS * 3600_000 };
}

/** True while the session's credential is still accepted (a revoked key ends the session). */
export async function sessionStillValid(env: Env, session: Session): Promise<boolean> {
  if (session.kind === "admin") return adminSession(env, session.token) !== undefined;
  return (await tenantSession(env, session.key)) !== undefined;
}

/** Forms carry the session's CSRF token; SameSite=Strict and an Origin check stand behind it. */
export function csrfTokenMatches(session: Session, sent: string | undefined): boolean {
  return sent !== undefined && constantTimeEqual(sent, session.csrf);
}
