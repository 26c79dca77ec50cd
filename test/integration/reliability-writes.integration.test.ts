import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signWebhook } from "../../functions/webhooks/standard-webhooks";
import { createTenant, startService, type TestService } from "../helpers/service";
import { tenantObject } from "../helpers/tenant-object";

/** Reliability items 6 and 8 of issue 12: webhook redeliveries and Idempotency-Key. */

let service: TestService;
let tenant: { id: string; key: string };
let secret: string;

beforeAll(async () => {
  service = await startService({ bindings: { MODEL_API_KEY: "" } });
  tenant = await createTenant(service, "writer-co");
  const created = await service.json<{ secret: string }>("POST", "/v1/webhooks/secrets", { key: tenant.key, body: {} });
  secret = created.body.secret;
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

describe("6. webhook redeliveries", () => {
  it("never acknowledge a duplicate of a delivery that failed; a retry after the failure is processed again", async () => {
    // Valid for the body schema, refused by the import: the failure happens after the claim.
    const broken = JSON.stringify({ openapi: "this is not an OpenAPI document" });
    const answers = await Promise.all(Array.from({ length: 10 }, () => deliver("msg_broken", broken)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s >= 200 && s < 300)).toEqual([]);
    expect(statuses.every((s) => s === 409 || (s >= 400 && s < 500 && s !== 409))).toBe(true);
    expect(statuses.some((s) => s !== 409)).toBe(true);
    for (const answer of answers.filter((a) => a.status === 409)) {
      expect(answer.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(answer.body.type).toBe("https://atc-edge.dev/problems/request-in-progress");
    }
    // The sender retries the same id after the failure: it is processed again, not "duplicate".
    const retried = await deliver("msg_broken", broken);
    expect(retried.status).toBe(statuses.find((s) => s !== 409));
    const fixed = JSON.stringify({ tools: [{ name: "getThing", method: "GET", url: "https://api.example.com/things/{id}" }] });
    const processed = await deliver("msg_broken", fixed);
    expect(processed.status).toBe(202);
    expect(processed.body.duplicate).toBe(false);
    const duplicate = await deliver("msg_broken", fixed);
    expect(duplicate.status).toBe(202);
    expect(duplicate.body).toMatchObject({ duplicate: true, jobId: processed.body.jobId });
  });
});

describe("6. a webhook-id reused with another body (issue 46, item 6)", () => {
  it("is refused 409 conflict and imports nothing; the same body stays 202 duplicate", async () => {
    const first = JSON.stringify({ tools: [{ name: "getGadget", method: "GET", url: "https://api.example.com/gadgets/{id}" }] });
    const other = JSON.stringify({ tools: [{ name: "getSmuggled", method: "GET", url: "https://api.example.com/smuggled/{id}" }] });
    const original = await deliver("msg_reused", first);
    expect(original.status).toBe(202);
    expect(original.body.duplicate).toBe(false);

    const reused = await deliver("msg_reused", other);
    expect(reused.status).toBe(409);
    expect(reused.body.type).toBe("https://atc-edge.dev/problems/conflict");
    expect((reused.body as { detail?: string }).detail).toContain("msg_reused");
    expect((await service.json("GET", "/v1/tools/getSmuggled", { key: tenant.key })).status).toBe(404);

    const again = await deliver("msg_reused", first);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ duplicate: true, jobId: original.body.jobId });
  });
});

describe("6. webhook redeliveries while the original is in flight (issue 32, item 3)", () => {
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

describe("8. Idempotency-Key", () => {
  it("replays the stored response for the same key and body, and creates nothing twice", async () => {
    const first = await service.json<{ id: string; key: string }>("POST", "/v1/keys", {
      key: tenant.key,
      body: { label: "bot" },
      headers: { "idempotency-key": "create-bot-key-1" },
    });
    const again = await service.json<{ id: string; key: string }>("POST", "/v1/keys", {
      key: tenant.key,
      body: { label: "bot" },
      headers: { "idempotency-key": "create-bot-key-1" },
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const keys = await service.json<{ keys: { label: string | null }[] }>("GET", "/v1/keys", { key: tenant.key });
    expect(keys.body.keys.filter((k) => k.label === "bot")).toHaveLength(1);

    // The same key for a different body (or route) is a client error, and changes nothing.
    const other = await service.json<{ type: string }>("POST", "/v1/keys", {
      key: tenant.key,
      body: { label: "other" },
      headers: { "idempotency-key": "create-bot-key-1" },
    });
    expect(other.status).toBe(422);
    expect(other.body.type).toBe("https://atc-edge.dev/problems/idempotency-key-reused");
    const elsewhere = await service.json("POST", "/v1/webhooks/secrets", {
      key: tenant.key,
      body: { label: "bot" },
      headers: { "idempotency-key": "create-bot-key-1" },
    });
    expect(elsewhere.status).toBe(422);
    const after = await service.json<{ keys: unknown[] }>("GET", "/v1/keys", { key: tenant.key });
    expect(after.body.keys).toHaveLength(keys.body.keys.length);
  });

  it("lets exactly one of concurrent requests with one key run; the others get 409 or the replay", async () => {
    const tools = [{ name: "getWidget", method: "GET", url: "https://api.example.com/widgets" }];
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        service.json<{ created?: string[] }>("POST", "/v1/tools/import", {
          key: tenant.key,
          body: { format: "list", source: "widgets", tools },
          headers: { "idempotency-key": "import-widgets" },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const original = answers.filter((a) => a.status === 200 && a.headers.get("idempotent-replayed") === null);
    expect(original).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status === 409)) expect(answer.headers.get("retry-after")).toMatch(/^\d+$/);
    for (const answer of answers.filter((a) => a.status === 200)) expect(answer.body).toEqual(original[0]?.body);
  });

  it("does not keep a failed request's key: it can be sent again", async () => {
    const bad = await service.json("POST", "/v1/keys", { key: tenant.key, body: { label: 5 }, headers: { "idempotency-key": "retry-me" } });
    expect(bad.status).toBe(400);
    const good = await service.json("POST", "/v1/keys", { key: tenant.key, body: { label: "retried" }, headers: { "idempotency-key": "retry-me" } });
    expect(good.status).toBe(201);
    const badKey = await service.json("POST", "/v1/keys", { key: tenant.key, body: {}, headers: { "idempotency-key": "caf\u00e9" } });
    expect([400, 422]).toContain(badKey.status);
  });

  it("keeps keys per tenant", async () => {
    const other = await createTenant(service, "other-writer");
    const mine = await service.json<{ id: string }>("POST", "/v1/keys", {
      key: tenant.key,
      body: { label: "x" },
      headers: { "idempotency-key": "shared-key" },
    });
    const theirs = await service.json<{ id: string }>("POST", "/v1/keys", {
      key: other.key,
      body: { label: "x" },
      headers: { "idempotency-key": "shared-key" },
    });
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });
});
