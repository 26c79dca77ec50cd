import { createHmac } from "node:crypto";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleTestWorker } from "../helpers/workerd-bundle";

/**
 * functions/webhooks must run inside workerd with Web Crypto alone: bundle it as a Worker, run it
 * in Miniflare WITHOUT nodejs_compat, and verify deliveries signed by Node's crypto.
 */

const WORKER_SOURCE = `
import { generateWebhookSecret, signWebhook, verifyWebhook } from "./functions/webhooks/standard-webhooks";

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/sign") {
      const { secret, id, timestamp, body } = await request.json();
      return Response.json({ signature: await signWebhook(secret, id, timestamp, body), fresh: generateWebhookSecret() });
    }
    const result = await verifyWebhook({
      headers: request.headers,
      body: await request.arrayBuffer(),
      secrets: [env.NEW_SECRET, env.OLD_SECRET],
      nowSeconds: Number(url.searchParams.get("now")),
    });
    return Response.json(result);
  },
};
`;

const OLD_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const NEW_SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
const NOW = 1_750_000_000;

let mf: Miniflare | undefined;

beforeAll(async () => {
  const script = await bundleTestWorker(WORKER_SOURCE, "webhooks-worker.js");
  mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2026-04-20",
    bindings: { OLD_SECRET, NEW_SECRET },
  });
  await mf.ready;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
});

function nodeSign(secret: string, id: string, timestamp: number, body: Buffer): string {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest("base64")}`;
}

async function deliver(headers: Record<string, string>, body: Buffer, now = NOW): Promise<unknown> {
  if (!mf) throw new Error("Miniflare did not start");
  const response = await mf.dispatchFetch(`http://worker.test/verify?now=${now}`, { method: "POST", headers, body });
  expect(response.status).toBe(200);
  return response.json();
}

describe("functions/webhooks inside workerd", () => {
  it("signs the reference vector and generates secrets", async () => {
    if (!mf) throw new Error("Miniflare did not start");
    const response = await mf.dispatchFetch("http://worker.test/sign", {
      method: "POST",
      body: JSON.stringify({ secret: OLD_SECRET, id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1614265330, body: '{"test": 2432232314}' }),
    });
    const result = (await response.json()) as { signature: string; fresh: string };
    expect(result.signature).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    expect(result.fresh).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it("verifies a raw delivery signed by Node's crypto with a rotated-out secret, and rejects tampering", async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"event":"ping","n":"✓"}\n')]);
    const id = "msg_workerd_1";
    const headers = { "Webhook-Id": id, "Webhook-Timestamp": String(NOW - 10), "Webhook-Signature": `v2,xyz ${nodeSign(OLD_SECRET, id, NOW - 10, body)}` };
    expect(await deliver(headers, body)).toEqual({ ok: true, id, timestamp: NOW - 10 });

    const tampered = Buffer.from(body);
    tampered[5] = (tampered[5] ?? 0) ^ 1;
    expect(await deliver(headers, tampered)).toMatchObject({ ok: false, reason: "no_valid_signature" });
    expect(await deliver(headers, body, NOW + 400)).toMatchObject({ ok: false, reason: "timestamp_too_old" });
    expect(await deliver({ ...headers, "Webhook-Signature": "v1,%%%" }, body)).toMatchObject({
      ok: false,
      reason: "no_valid_signature",
    });
  });
});
