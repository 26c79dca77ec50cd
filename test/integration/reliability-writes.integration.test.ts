import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signWebhook } from "../../functions/webhooks/standard-webhooks";
import { createTenant, startService, type TestService } from "../helpers/service";

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
    expect(statuses.every((s) => s === 409 || (s >= 400 && s < 500 && s !== 409) )).toBe(true);
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
