import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signWebhook } from "../../functions/webhooks/standard-webhooks";
import { sha256Hex } from "../../functions/tenants/api-keys";
import { createTenant, startService, type TestService } from "../helpers/service";
import { tenantObject } from "../helpers/tenant-object";

/** Issue 32 (hardening, second pass): items 3 and 4 against the service in workerd. */

let service: TestService;
let tenant: { id: string; key: string };
let secret: string;

beforeAll(async () => {
  service = await startService({ bindings: { MODEL_API_KEY: "" } });
  tenant = await createTenant(service, "second-pass-co");
  secret = (await service.json<{ secret: string }>("POST", "/v1/webhooks/secrets", { key: tenant.key, body: {} })).body.secret;
});

afterAll(async () => {
  await service.dispose();
});

async function deliver(id: string, body: string) {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = await signWebhook(secret, id, timestamp, body);
  return service.json<{ duplicate?: boolean; jobId?: string | null; type?: string }>("POST", `/v1/webhooks/${tenant.id}/tools`, {
    body,
    headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signature },
  });
}

describe("3. webhook redeliveries while the original is in flight", () => {
  const body = JSON.stringify({ tools: [{ name: "getWidget", method: "GET", url: "https://api.example.com/widgets/{id}" }] });

  it("answer 409 with Retry-After while the original is being handled, 202 duplicate once it has succeeded", async () => {
    // The original, claimed as the handler in another isolate would have: still in flight.
    const webhooks = (await tenantObject(service, tenant.id)).store("webhooks");
    expect((await webhooks.claimDelivery("msg_held")).state).toBe("claimed");
    const during = await deliver("msg_held", body);
    expect(during.status).toBe(409);
    expect(during.body.type).toBe("https://atc-edge.dev/problems/request-in-progress");
    expect(during.headers.get("retry-after")).toMatch(/^\d+$/);
    await webhooks.completeDelivery("msg_held", null, "accepted");
    const after = await deliver("msg_held", body);
    expect(after.status).toBe(202);
    expect(after.body.duplicate).toBe(true);
  });

  it("tell the sender both answers in the API description: which to expect, and why a redelivery may be held", async () => {
    const openapi = await service.json<{ paths: Record<string, { post?: { description?: string } }> }>("GET", "/openapi.json");
    const description = openapi.body.paths["/v1/webhooks/{tenant}/tools"]?.post?.description ?? "";
    expect(description).toContain("409 `request-in-progress` with `Retry-After` while the original is still being handled");
    expect(description).toContain("202 `duplicate: true` once it has succeeded");
    expect(description).toMatch(/held until the original has finished/);
  });
});

describe("4. a refused admission is an answer, not an exception", () => {
  it("the tenant object returns the refusal (workerd logs every exception an RPC method throws, with a stack)", async () => {
    const namespace = await service.mf.getDurableObjectNamespace("TENANTS", "atc-edge");
    const stub = namespace.get(namespace.idFromName(tenant.id)) as unknown as { admitted(keyHash: string, family: string, nowMs: number): Promise<unknown> };
    const refused = await stub.admitted(await sha256Hex(`atc_${tenant.id}_${"w".repeat(32)}`), "reads", Date.now()).then((value) => ({ value }), (error: unknown) => ({ thrown: String(error) }));
    expect(refused).toEqual({ value: { refusal: null } });
    const answer = await service.json<{ type: string }>("GET", "/v1/tools", { key: `atc_${tenant.id}_${"w".repeat(32)}` });
    expect(answer.status).toBe(401);
    expect(answer.body.type).toBe("https://atc-edge.dev/problems/unauthorized");
  });
});
