import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREDENTIALS_KEY_MISSING } from "../../functions/tenants/credentials-key";
import { createTenant, startService, type TestService } from "../helpers/service";

/** A service whose CREDENTIALS_KEY is too short: every API path that seals a secret answers alike. */
let service: TestService;
let key: string;

beforeAll(async () => {
  service = await startService({ bindings: { CREDENTIALS_KEY: "too-short" } });
  key = (await createTenant(service, "short-key")).key;
});

afterAll(async () => {
  await service.dispose();
});

describe("a short CREDENTIALS_KEY", () => {
  const requests: [string, string, unknown][] = [
    ["PUT", "/v1/credentials", { scope: { tool: "getMovie" }, scheme: "bearer", value: "tok_0123456789abcdef" }],
    ["POST", "/v1/webhooks/secrets", {}],
    ["PUT", "/v1/settings/model", { apiKey: "sk-tenant-0123456789" }],
  ];

  it("is one 503 not-configured problem on every path that seals a secret, and nothing is stored", async () => {
    for (const [method, path, body] of requests) {
      const answer = await service.json<{ type: string; status: number; detail: string }>(method, path, { key, body });
      expect({ path, status: answer.status, type: answer.body.type.split("/").pop(), detail: answer.body.detail }).toEqual({
        path,
        status: 503,
        type: "not-configured",
        detail: CREDENTIALS_KEY_MISSING,
      });
    }
    expect((await service.json<{ credentials: unknown[] }>("GET", "/v1/credentials", { key })).body.credentials).toEqual([]);
    expect((await service.json<{ override: unknown }>("GET", "/v1/settings/model", { key })).body.override ?? null).toBeNull();
  });
});
