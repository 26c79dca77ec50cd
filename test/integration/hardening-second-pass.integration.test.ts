import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signWebhook } from "../../functions/webhooks/standard-webhooks";
import { sha256Hex } from "../../functions/tenants/api-keys";
import { createTenant, startService, type TestService } from "../helpers/service";

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
  const started = performance.now();
  const answer = await service.json<{ duplicate?: boolean; type?: string }>("POST", `/v1/webhooks/${tenant.id}/tools`, {
    body,
    headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signature },
  });
  return { ...answer, ms: performance.now() - started, finishedAt: performance.now() };
}

describe("3. webhook redeliveries while the original is in flight", () => {
  it("answer 409 with Retry-After, never a 2xx before the original has finished", async () => {
    const tools = Array.from({ length: 400 }, (_, i) => ({ name: `bulkTool${i}`, method: "GET", url: `https://api.example.com/bulk/${i}/{id}`, description: `Bulk tool number ${i} ${"words ".repeat(30)}` }));
    const body = JSON.stringify({ tools });
    const original = deliver("msg_in_flight", body);
    const duplicates = await Promise.all([5, 20, 60, 150].map(async (delay) => {
      await new Promise((r) => setTimeout(r, delay));
      return deliver("msg_in_flight", body);
    }));
    const first = await original;
    expect(first.status).toBe(202);
    console.log(`[issue 32, 3] original ${first.ms.toFixed(0)} ms; duplicates: ${duplicates.map((d) => `${d.status} in ${d.ms.toFixed(0)} ms`).join(", ")}`);
    for (const duplicate of duplicates) {
      if (duplicate.finishedAt < first.finishedAt) {
        expect(duplicate.status).toBe(409);
        expect(duplicate.headers.get("retry-after")).toMatch(/^\d+$/);
      } else {
        expect([202, 409]).toContain(duplicate.status);
      }
    }
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
