import type { DirectoryObject } from "../../durable-objects/directory-object";

/**
 * Does a tenant exist? Asked before any tenant object is addressed: creating a Durable Object
 * stub and calling it creates that object's storage (a full schema, ~210 KB), so a made-up key or
 * webhook tenant must never reach one. Positive answers are kept for the isolate's life (tenants
 * are never deleted), so a known tenant's requests cost no extra round trip; unknown ones always
 * ask (one indexed read in the directory object).
 */

const MAX_REMEMBERED = 10_000;
const knownTenants = new Set<string>();

export function directory(env: Env): DurableObjectStub<DirectoryObject> {
  return env.DIRECTORY.getByName("directory");
}

export async function tenantExists(env: Env, tenantId: string): Promise<boolean> {
  if (knownTenants.has(tenantId)) return true;
  const exists = await directory(env).exists(tenantId);
  if (exists) {
    if (knownTenants.size >= MAX_REMEMBERED) knownTenants.clear();
    knownTenants.add(tenantId);
  }
  return exists;
}
