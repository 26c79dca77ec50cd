import type { TenantApi } from "../../durable-objects/tenant-api";

/**
 * A tenant stub for unit tests: settings in a map plus the methods a test passes; calling any
 * other method fails the test, so a test shows exactly what the code under test asks of the tenant.
 */
export function fakeTenant(settings = new Map<string, string>(), extra: Record<string, unknown> = {}): TenantApi {
  const methods: Record<string, unknown> = {
    async getSetting(name: string) {
      return settings.get(name);
    },
    async putSetting(name: string, value: string) {
      settings.set(name, value);
    },
    ...extra,
  };
  return new Proxy(methods, {
    get(target, name) {
      if (typeof name === "string" && name in target) return target[name];
      throw new Error(`unexpected tenant call: ${String(name)}`);
    },
  }) as unknown as TenantApi;
}
