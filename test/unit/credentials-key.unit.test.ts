import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { startSession } from "../../functions/http/console/session";
import { Failure } from "../../functions/common/failures";
import { credentialsKey, CREDENTIALS_KEY_MISSING, credentialsKeyIfSet, MIN_CREDENTIALS_KEY_LENGTH } from "../../functions/tenants/credentials-key";
import { storeModelOverride, tenantModelConfig } from "../../functions/services/model-settings";
import { storeCredential } from "../../functions/services/store-credential";
import { invokeTool } from "../../functions/services/invoke";
import { fakeTenant } from "../helpers/fake-tenant";

const GOOD_KEY = "a-credentials-key-of-32-characters";
const MISSING: Record<string, { CREDENTIALS_KEY?: string }> = {
  unset: {},
  empty: { CREDENTIALS_KEY: "" },
  short: { CREDENTIALS_KEY: "x".repeat(MIN_CREDENTIALS_KEY_LENGTH - 1) },
};

const asEnv = (vars: { CREDENTIALS_KEY?: string }) => vars as unknown as Env;

async function thrown(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

function expectMissingKey(error: unknown): void {
  expect(error).toBeInstanceOf(Failure);
  expect(error).toMatchObject({ kind: "not-configured", detail: CREDENTIALS_KEY_MISSING });
}

describe("credentialsKey", () => {
  it("returns a key of the minimum length or longer", () => {
    const exact = "k".repeat(MIN_CREDENTIALS_KEY_LENGTH);
    expect(credentialsKey({ CREDENTIALS_KEY: exact })).toBe(exact);
    expect(credentialsKeyIfSet({ CREDENTIALS_KEY: GOOD_KEY })).toBe(GOOD_KEY);
  });

  for (const [name, env] of Object.entries(MISSING)) {
    it(`refuses a ${name} key with one not-configured failure`, async () => {
      expectMissingKey(await thrown(async () => credentialsKey(env)));
      expect(credentialsKeyIfSet(env)).toBeUndefined();
    });
  }
});

describe("every path that seals or opens a secret refuses a missing or short key the same way", () => {
  const credential = {
    scope: { kind: "tool" as const, value: "getMovie" },
    scheme: "bearer" as const,
    in: "header" as const,
    name: null,
    value: "tok_0123456789abcdef",
  };
  const tool = {
    definition: { name: "getMovie", operation: "getMovie", method: "GET", serverUrl: "https://api.example.test", path: "/movie", parameters: [] },
    hash: "h",
  };

  for (const [name, vars] of Object.entries(MISSING)) {
    const env = asEnv(vars);
    it(`${name}: storing a tool credential`, async () => {
      expectMissingKey(await thrown(() => storeCredential(env, "acme", fakeTenant(), credential)));
    });

    it(`${name}: storing a tenant model key (nothing is stored)`, async () => {
      const settings = new Map<string, string>();
      expectMissingKey(await thrown(() => storeModelOverride(env, "acme", fakeTenant(settings), { apiKey: "sk-tenant-0123456789" })));
      expect(settings.size).toBe(0);
    });

    it(`${name}: opening a stored tenant model key (refused, not skipped)`, async () => {
      const settings = new Map<string, string>();
      await storeModelOverride(asEnv({ CREDENTIALS_KEY: GOOD_KEY }), "acme", fakeTenant(settings), {
        baseUrl: "https://models.example.test/v1",
        apiKey: "sk-tenant-0123456789",
      });
      expectMissingKey(await thrown(() => tenantModelConfig({ ...env, MODEL_API_KEY: "sk-service" } as Env, "acme", fakeTenant(settings))));
    });

    it(`${name}: calling a tool that has a credential`, async () => {
      const tenant = fakeTenant(new Map(), {
        toolForCall: async () => ({ tool, credential: { id: "cred_1", scheme: "bearer", in: "header", name: null, ciphertext: "AA==", iv: "AA==" } }),
      });
      expectMissingKey(await thrown(() => invokeTool(env, "acme", tenant, "getMovie", {})));
    });

    it(`${name}: starting a console session`, async () => {
      const app = new Hono<{ Bindings: Env }>();
      let error: unknown;
      app.get("/", async (c) => {
        error = await thrown(() => startSession(c, { kind: "admin", token: "t", csrf: "c", expiresAt: Date.now() + 1_000 }));
        return c.text("done");
      });
      await app.request("/", {}, env);
      expectMissingKey(error);
    });
  }
});
