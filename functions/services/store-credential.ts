import type { TenantApi } from "../tenant-api/tenant-api";
import type { CredentialScheme } from "../storage/tenant-registry";
import { Failure } from "../common/failures";
import { maskedHint, sealSecret } from "../tenants/credential-crypto";
import { credentialsKey } from "../tenants/credentials-key";
import { credentialValueProblem } from "../tenants/credential-values";

export interface NewCredential {
  scope: { kind: "tool" | "server"; value: string };
  scheme: CredentialScheme;
  in: "header" | "query";
  name: string | null;
  /** The secret; for `oauth2ClientCredentials`, the client secret. */
  value: string;
  /** `oauth2ClientCredentials` only: sealed together with the secret. */
  clientCredentials?: { clientId: string; tokenUrl?: string; scopes?: string[] } | undefined;
}

/** Seal a tool credential with the service secret and store it (replacing the scope's previous one). */
export async function storeCredential(
  env: Env,
  tenantId: string,
  tenant: TenantApi,
  credential: NewCredential,
): ReturnType<TenantApi["registry"]["putCredential"]> {
  const serviceSecret = credentialsKey(env);
  // Every path that stores a credential (API, MCP import) refuses values the runtime could not
  // send, and would quote in a warning; the message never holds the value.
  const apiKey = credential.scheme === "apiKey";
  const problem = credentialValueProblem(credential.value, credential.scheme === "bearer" ? "bearer" : apiKey ? credential.in : "header");
  if (problem !== undefined) throw new Failure("invalid-request", "The credential value cannot be sent as given.", [{ path: "value", message: problem }]);
  if (credential.scheme === "oauth2ClientCredentials" && credential.clientCredentials === undefined) {
    throw new Failure("invalid-request", "An oauth2ClientCredentials credential needs its clientId.", [{ path: "clientId", message: "required" }]);
  }
  const id = `cred_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const plaintext =
    credential.scheme === "oauth2ClientCredentials" ? JSON.stringify({ ...credential.clientCredentials, clientSecret: credential.value }) : credential.value;
  const sealed = await sealSecret(serviceSecret, tenantId, id, plaintext);
  return tenant.registry.putCredential({
    id,
    scope: credential.scope,
    scheme: credential.scheme,
    in: apiKey ? credential.in : "header",
    name: apiKey ? credential.name : null,
    hint: maskedHint(credential.value),
    createdAt: new Date().toISOString(),
    ...sealed,
  });
}
