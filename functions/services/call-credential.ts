import type { TenantApi } from "../tenant-api/tenant-api";
import type { SealedCredential } from "../storage/tenant-registry";
import { openSecret, sealSecret } from "../tenants/credential-crypto";
import { credentialsKey } from "../tenants/credentials-key";
import type { ToolDefinition } from "../tools/definition";
import { ClientCredentials, fetchClientCredentialsToken, tokenUsable, type TokenFetchOptions } from "../tools/oauth-client-credentials";
import type { InjectedCredential } from "../tools/safe-call";

/**
 * The credential a tool call injects, opened from its sealed record: a stored secret as it is, or,
 * for an OAuth 2 client-credentials credential, an access token, reused from the tenant's token
 * cache while it is valid and fetched (then cached, sealed) when it is not.
 */

export type CallCredential =
  | { ok: true; credential: InjectedCredential /** A cached token, which the API may have revoked early. */; reused: boolean }
  | { ok: false; message: string };

type Registry = Pick<TenantApi["registry"], "cachedToken" | "cacheToken">;

/** Open `sealed` for a call of `definition`; `fresh` skips the token cache (after the API refused a cached token). */
export async function openCallCredential(
  env: Env,
  tenantId: string,
  registry: Registry,
  sealed: SealedCredential,
  definition: ToolDefinition,
  network: TokenFetchOptions,
  fresh = false,
): Promise<CallCredential> {
  const key = credentialsKey(env);
  const value = await openSecret(key, tenantId, sealed.id, { ciphertext: sealed.ciphertext, iv: sealed.iv });
  if (sealed.scheme !== "oauth2ClientCredentials") {
    return { ok: true, reused: false, credential: { scheme: sealed.scheme, in: sealed.in, ...(sealed.name === null ? {} : { name: sealed.name }), value } };
  }
  const parsed = ClientCredentials.safeParse(JSON.parse(value));
  if (!parsed.success) return { ok: false, message: "the stored client-credentials credential cannot be read; store it again" };
  const tokenRecord = `${sealed.id}/token`;
  const now = (network.now ?? Date.now)();
  const cached = fresh ? undefined : await registry.cachedToken(sealed.id);
  if (cached !== undefined && tokenUsable(cached.expiresAt, now)) {
    const token = await openSecret(key, tenantId, tokenRecord, cached);
    return { ok: true, reused: true, credential: { scheme: "bearer", in: "header", value: token } };
  }
  const tokenUrl = parsed.data.tokenUrl ?? definition.auth?.tokenUrl;
  if (tokenUrl === undefined)
    return { ok: false, message: "the client-credentials credential has no tokenUrl and the tool's document names none; store it with tokenUrl" };
  const fetched = await fetchClientCredentialsToken(parsed.data, tokenUrl, network);
  if (!fetched.ok) return fetched;
  await registry.cacheToken(sealed.id, { ...(await sealSecret(key, tenantId, tokenRecord, fetched.token)), expiresAt: fetched.expiresAt });
  return { ok: true, reused: false, credential: { scheme: "bearer", in: "header", value: fetched.token } };
}
