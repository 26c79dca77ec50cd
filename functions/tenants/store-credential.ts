import type { TenantApi } from "../../durable-objects/tenant-api";
import { Failure } from "../failures";
import { maskedHint, sealSecret } from "./credential-crypto";
import { credentialsKey } from "./credentials-key";
import { credentialValueProblem } from "./credential-values";

export interface NewCredential {
  scope: { kind: "tool" | "server"; value: string };
  scheme: "apiKey" | "bearer";
  in: "header" | "query";
  name: string | null;
  value: string;
}

/** Seal a tool credential with the service secret and store it (replacing the scope's previous one). */
export async function storeCredential(env: Env, tenantId: string, tenant: TenantApi, credential: NewCredential): ReturnType<TenantApi["registry"]["putCredential"]> {
  const serviceSecret = credentialsKey(env);
  // Every path that stores a credential (API, MCP import) refuses values the runtime could not
  // send, and would quote in a warning; the message never holds the value.
  const problem = credentialValueProblem(credential.value, credential.scheme === "bearer" ? "bearer" : credential.in);
  if (problem !== undefined) throw new Failure("invalid-request", "The credential value cannot be sent as given.", [{ path: "value", message: problem }]);
  const id = `cred_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const sealed = await sealSecret(serviceSecret, tenantId, id, credential.value);
  return tenant.registry.putCredential({
    id,
    scope: credential.scope,
    scheme: credential.scheme,
    in: credential.scheme === "bearer" ? "header" : credential.in,
    name: credential.scheme === "bearer" ? null : credential.name,
    hint: maskedHint(credential.value),
    createdAt: new Date().toISOString(),
    ...sealed,
  });
}
