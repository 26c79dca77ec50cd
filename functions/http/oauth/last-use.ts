/**
 * When a connected client last used `/mcp`, for the console's list of connections. Kept in
 * `OAUTH_KV` beside the library's records (under a prefix of its own, which the library never
 * lists), one key per tenant and client, since a client holds one grant per tenant (a new
 * approval replaces the old one). Written after the response, and at most once a minute per
 * client from one isolate: a chat session's many requests cost one write, and "last used" needs
 * no finer grain.
 */

const PREFIX = "atc-last-use:";
const WRITE_EVERY_MS = 60_000;
/** Kept a little longer than a grant can live (30 days from the code exchange). */
const KEEP_SECONDS = 31 * 24 * 3600;
const MAX_REMEMBERED = 10_000;
const lastWritten = new Map<string, number>();

function keyOf(tenantId: string, clientId: string): string {
  return `${PREFIX}${tenantId}:${clientId}`;
}

/** Note a use now (in the background, unless written from this isolate within the minute). */
export function recordLastUse(env: Env, ctx: Pick<ExecutionContext, "waitUntil">, tenantId: string, clientId: string): void {
  const key = keyOf(tenantId, clientId);
  const now = Date.now();
  if (now - (lastWritten.get(key) ?? 0) < WRITE_EVERY_MS) return;
  if (lastWritten.size >= MAX_REMEMBERED) lastWritten.clear();
  lastWritten.set(key, now);
  ctx.waitUntil(env.OAUTH_KV.put(key, new Date(now).toISOString(), { expirationTtl: KEEP_SECONDS }).catch(() => lastWritten.delete(key)));
}

/** When the client last used its grant for this tenant (ISO time), if it ever did. */
export async function lastUseOf(env: Env, tenantId: string, clientId: string): Promise<string | undefined> {
  return (await env.OAUTH_KV.get(keyOf(tenantId, clientId))) ?? undefined;
}

/** A revoked connection's record goes with it. */
export async function forgetLastUse(env: Env, tenantId: string, clientId: string): Promise<void> {
  lastWritten.delete(keyOf(tenantId, clientId));
  await env.OAUTH_KV.delete(keyOf(tenantId, clientId));
}
