import type { TenantApi } from "../../functions/tenant-api/tenant-api";

/**
 * A tenant stub for unit tests: settings in a map plus the registry methods a test passes; calling any
 * other method fails the test, so a test shows exactly what the code under test asks of the tenant.
 */
export function fakeTenant(settings = new Map<string, string>(), registry: Record<string, unknown> = {}): TenantApi {
  const stores: Record<string, Record<string, unknown>> = {
    settings: {
      async get(name: string) {
        return settings.get(name);
      },
      async put(name: string, value: string | undefined) {
        if (value === undefined) settings.delete(name);
        else settings.set(name, value);
      },
    },
    registry,
  };
  const strict = (what: string, target: Record<string, unknown>) =>
    new Proxy(target, {
      get(object, name) {
        if (typeof name === "string" && name in object) return object[name];
        throw new Error(`unexpected tenant call: ${what}.${String(name)}`);
      },
    });
  return new Proxy(stores, {
    get(target, name) {
      if (typeof name === "string" && name in target) return strict(name, target[name] ?? {});
      throw new Error(`unexpected tenant call: ${String(name)}`);
    },
  }) as unknown as TenantApi;
}
