import { describe, expect, it, vi } from "vitest";
import { createApp } from "../../functions/http/app";
import { quotaFamily } from "../../functions/http/quota-family";
import { adminApp, signedWebhookApp, tenantApp } from "../../functions/http/sub-apps";
import { sha256Hex } from "../../functions/tenants/api-keys";

/**
 * Authentication is decided by the sub-app a route is registered on (issue 11): a route added to
 * the tenant sub-app is refused without a key although nothing lists it, and a signed-webhook
 * route joined before it is reached without one. The Durable Objects are fakes here: the
 * directory knows one tenant, whose object admits one key.
 */

/** What an RPC call returns: a promise that can also be disposed of, resolving to a disposable stub. */
function disposable<T extends object>(value: T): T & Disposable {
  return Object.assign(value, { [Symbol.dispose]: () => {} });
}
/** `admitted()`'s answer: the surface when admitted, else the refusal (no surface to call). */
function admissionAnswer(admit: boolean) {
  const surface = disposable({});
  return Object.assign(Promise.resolve(admit ? { surface } : { refusal: null }), { surface, [Symbol.dispose]: () => {} });
}

const KEY = "atc_acme_0123456789abcdefghijklmnopqrstuv";
const keyHash = await sha256Hex(KEY);
const env = {
  ADMIN_TOKEN: "admin-secret",
  DIRECTORY: { getByName: () => ({ exists: async (tenantId: string) => tenantId === "acme" }) },
  TENANTS: {
    getByName: () => ({
      admit: async (hash: string) => (hash === keyHash ? { ok: true } : { ok: false, problem: null }),
      admitted: (hash: string) => admissionAnswer(hash === keyHash),
    }),
  },
} as unknown as Env;

/** The service's shape in small: the webhook joined before the tenant API, as service-app.ts does. */
function service() {
  const app = createApp();
  const webhooks = signedWebhookApp();
  webhooks.post("/:tenant/tools", (c) => c.json({ delivered: c.req.param("tenant") }, 202));
  app.route("/v1/webhooks", webhooks);
  const tenant = tenantApp();
  // Nothing else names this route: being on the tenant sub-app is what protects it.
  tenant.get("/brand-new", (c) => c.json({ tenant: c.var.tenantId }));
  app.route("/v1", tenant);
  const admin = adminApp();
  admin.get("/brand-new", (c) => c.json({ admin: true }));
  app.route("/admin", admin);
  return app;
}

const from = (address: string, headers: Record<string, string> = {}) => ({ headers: { "cf-connecting-ip": address, ...headers } });

describe("HTTP sub-apps", () => {
  const app = service();

  it("refuses a new tenant route without a key or with a wrong one, as problem+json 401", async () => {
    const missing = await app.request("/v1/brand-new", from("192.0.2.1"), env);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("content-type")).toContain("application/problem+json");
    expect(await missing.json()).toMatchObject({ type: "https://atc-edge.dev/problems/unauthorized" });
    const wrong = await app.request("/v1/brand-new", from("192.0.2.1", { authorization: `Bearer ${KEY.replace("0123", "3210")}` }), env);
    expect(wrong.status).toBe(401);
  });

  it("serves the new tenant route with the tenant's key, naming the tenant", async () => {
    const res = await app.request("/v1/brand-new", from("192.0.2.2", { authorization: `Bearer ${KEY}` }), env);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ tenant: "acme" });
  });

  it("reaches a signed-webhook route without a key, while /v1 around it still needs one", async () => {
    const delivered = await app.request("/v1/webhooks/acme/tools", { method: "POST", ...from("192.0.2.3") }, env);
    expect(delivered.status).toBe(202);
    expect(await delivered.json()).toEqual({ delivered: "acme" });
    const otherMethod = await app.request("/v1/webhooks/acme/tools", from("192.0.2.3"), env);
    expect(otherMethod.status).toBe(401);
  });

  it("refuses a new admin route without the admin token, and serves it with it", async () => {
    expect((await app.request("/admin/brand-new", from("192.0.2.4"), env)).status).toBe(401);
    expect((await app.request("/admin/brand-new", from("192.0.2.4", { authorization: `Bearer ${KEY}` }), env)).status).toBe(401);
    const res = await app.request("/admin/brand-new", from("192.0.2.4", { authorization: "Bearer admin-secret" }), env);
    expect(res.status).toBe(200);
  });
});

/**
 * A tenant object as the Worker meets it over RPC, in small: `admitted()` answers only once the
 * call pipelined on its result has been sent too (both travel before any answer comes back, as
 * on the wire). A Worker that waited for the admission before sending its action would wait for
 * ever: here, until the test's timeout.
 */
function pipelinedTenant(admit: boolean, log: string[]) {
  let actionSent: () => void = () => {};
  const sent = new Promise<void>((resolve) => {
    actionSent = resolve;
  });
  const surface = {
    routing: {
      route: (task: string): Promise<unknown> => {
        log.push("action sent");
        actionSent();
        // A refused answer has no surface: the call pipelined on it fails, as workerd's does.
        return answered.then((a) =>
          "surface" in a ? { task, tools: ["getSearchPerson"] } : Promise.reject(new TypeError('The RPC receiver does not implement the method "routing".')),
        );
      },
    },
  };
  const answered: Promise<{ surface: typeof surface } | { refusal: null }> = sent.then(() => {
    log.push("admission answered");
    return admit ? { surface } : { refusal: null };
  });
  const answer = Object.assign(answered, { surface, [Symbol.dispose]: () => log.push("released") });
  return {
    ADMIN_TOKEN: "admin-secret",
    DIRECTORY: { getByName: () => ({ exists: async () => true }) },
    TENANTS: { getByName: () => ({ admitted: () => answer }) },
  } as unknown as Env;
}

describe("one round trip per routing request (issue 16)", () => {
  const app = createApp();
  const tenant = tenantApp();
  const sideEffects: string[] = [];
  // Declared as the service's own /v1/route is: routing traffic, whose action travels with the key check.
  tenant.post("/route", quotaFamily("routing"), async (c) =>
    c.json(await (c.var.tenant.routing.route as unknown as (task: string) => Promise<unknown>)("find a person")),
  );
  // A route whose action reaches past the tenant (as tool calls and runs do): it must never run unadmitted.
  tenant.post("/tools/:name/call", (c) => {
    sideEffects.push(c.req.param("name"));
    return c.json({ called: true });
  });
  app.route("/v1", tenant);

  it("sends the routing action together with the key check, not after its answer", async () => {
    const log: string[] = [];
    const res = await app.request(
      "/v1/route",
      { method: "POST", headers: { authorization: `Bearer ${KEY}`, "cf-connecting-ip": "192.0.2.10" } },
      pipelinedTenant(true, log),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ task: "find a person", tools: ["getSearchPerson"] });
    expect(log).toEqual(["action sent", "admission answered", "released"]);
  }, 5_000);

  it("answers a refused key with 401 although the action travelled with it", async () => {
    const log: string[] = [];
    const res = await app.request(
      "/v1/route",
      { method: "POST", headers: { authorization: `Bearer ${KEY}`, "cf-connecting-ip": "192.0.2.11" } },
      pipelinedTenant(false, log),
    );
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ type: "https://atc-edge.dev/problems/unauthorized" });
  }, 5_000);

  it("logs a refused key once, as a structured info line without a stack, and no error", async () => {
    const info = vi.spyOn(console, "info").mockImplementation(() => {});
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const res = await app.request(
        "/v1/route",
        { method: "POST", headers: { authorization: `Bearer ${KEY}`, "cf-connecting-ip": "192.0.2.14" } },
        pipelinedTenant(false, []),
      );
      expect(res.status).toBe(401);
      expect(error).not.toHaveBeenCalled();
      expect(info).toHaveBeenCalledTimes(1);
      const line = JSON.parse(String(info.mock.calls[0]?.[0])) as Record<string, unknown>;
      expect(line).toEqual({ level: "info", event: "request_refused", status: 401, problem: "unauthorized", method: "POST", path: "/v1/route" });
      expect(JSON.stringify(info.mock.calls)).not.toContain(KEY.slice(10));
    } finally {
      info.mockRestore();
      error.mockRestore();
    }
  }, 5_000);

  it("waits for the admission before an action that reaches past the tenant", async () => {
    const refused = { ...env, TENANTS: { getByName: () => ({ admit: async () => ({ ok: false, problem: null }) }) } } as unknown as Env;
    const res = await app.request(
      "/v1/tools/deleteEverything/call",
      { method: "POST", headers: { authorization: `Bearer ${KEY}`, "cf-connecting-ip": "192.0.2.12" } },
      refused,
    );
    expect(res.status).toBe(401);
    expect(sideEffects).toEqual([]);
    // Admitted, it runs (the handler is reached at all).
    const admitted = await app.request(
      "/v1/tools/getThing/call",
      { method: "POST", headers: { authorization: `Bearer ${KEY}`, "cf-connecting-ip": "192.0.2.13" } },
      env,
    );
    expect(admitted.status).toBe(200);
    expect(sideEffects).toEqual(["getThing"]);
  }, 5_000);
});
