import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../functions/tenants/api-keys";
import { createTenant, startService, type TestService } from "../helpers/service";

/** Reliability items 4 and 7 of issue 12: model destinations, quotas. */

let service: TestService;
const outboundHosts: string[] = [];

const completion = { model: "m", choices: [{ finish_reason: "stop", message: { content: "return 1;" } }], usage: { prompt_tokens: 5, completion_tokens: 5 } };

beforeAll(async () => {
  service = await startService({
    outbound: async (request) => {
      const url = new URL(request.url);
      outboundHosts.push(url.host);
      // The tenant's public model endpoint redirects everything to a private address.
      if (url.hostname === "slow.example.com") await new Promise((r) => setTimeout(r, 3_000));
      if (url.hostname.endsWith("example.com")) return Response.json({ ok: true });
      if (url.hostname === "model.tenant-choice.example") return new Response(null, { status: 307, headers: { location: `http://10.0.0.1${url.pathname}` } });
      if (url.pathname.endsWith("/embeddings")) return Response.json({ data: [{ index: 0, embedding: [1, 0] }], usage: { prompt_tokens: 1 } });
      return Response.json(completion);
    },
  });
});

afterAll(async () => {
  await service.dispose();
});

describe("4. a tenant model endpoint that redirects to a private address", () => {
  it("never gets the prompt or embeddings input sent there", async () => {
    const tenant = await createTenant(service, "redirect-co");
    await service.json("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "list", tools: [{ name: "getThing", method: "GET", url: "https://api.example.com/things" }] },
    });
    const settings = await service.json("PUT", "/v1/settings/model", {
      key: tenant.key,
      body: { baseUrl: "https://model.tenant-choice.example/v1", apiKey: "sk-tenant-abcdefghijklmnop", model: "m", embeddingModel: "e" },
    });
    expect(settings.status).toBe(200);
    outboundHosts.length = 0;
    const run = await service.json<{ type?: string; status?: string }>("POST", "/v1/runs", {
      key: tenant.key,
      body: { task: "get the thing", tools: ["getThing"], maxAttempts: 1 },
    });
    expect(run.status).not.toBe(500);
    const routed = await service.json("POST", "/v1/route", { key: tenant.key, body: { task: "get the thing" } });
    expect(routed.status).not.toBe(500);
    expect(outboundHosts).toContain("model.tenant-choice.example");
    expect(outboundHosts.filter((h) => h.startsWith("10."))).toEqual([]);
  });
});

type Answer = { status: number; headers: Headers; body: { type?: string } };

/** `count` requests, `parallel` at a time. */
async function burst(count: number, parallel: number, send: (i: number) => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let start = 0; start < count; start += parallel) {
    answers.push(...(await Promise.all(Array.from({ length: Math.min(parallel, count - start) }, (_, j) => send(start + j)))));
  }
  return answers;
}

function expectRateLimited(answers: Answer[]): void {
  const limited = answers.filter((a) => a.status === 429);
  expect(limited.length).toBeGreaterThan(0);
  for (const a of limited) {
    expect(a.headers.get("content-type")).toBe("application/problem+json");
    expect(Number(a.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(a.body.type).toMatch(/rate-limited|quota-exceeded/);
  }
}

describe("7. quotas", () => {
  it("limits a tenant's tool calls per second with 429 + Retry-After, while another tenant is not slowed", async () => {
    const busy = await createTenant(service, "busy-caller");
    const calm = await createTenant(service, "calm-caller");
    for (const t of [busy, calm]) {
      await service.json("POST", "/v1/tools/import", {
        key: t.key,
        body: { format: "list", tools: [{ name: "ping", method: "GET", url: "https://api.example.com/ping" }] },
      });
    }
    const calmAnswers: Answer[] = [];
    const answers = await burst(600, 60, async (i) => {
      if (i % 60 === 0) calmAnswers.push(await service.json("POST", "/v1/tools/ping/call", { key: calm.key, body: { arguments: {} } }));
      return service.json("POST", "/v1/tools/ping/call", { key: busy.key, body: { arguments: {} } });
    });
    expectRateLimited(answers);
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
    expect(calmAnswers.map((a) => a.status)).toEqual(Array(10).fill(200));
    const ok = answers.filter((a) => a.status === 200).length;
    console.log(`[reliability 7] 600 tool calls of one tenant: ${ok} admitted, ${600 - ok} × 429; the other tenant's 10 calls meanwhile: all 200`);
  });

  it("limits bad-key attempts per client address; a good key and other addresses still get through", async () => {
    const owner = await createTenant(service, "keyed-co");
    const attacker = { "cf-connecting-ip": "203.0.113.66" };
    // The owner's tenant is known to the service (used before the flood).
    expect((await service.json("GET", "/v1/tools", { key: owner.key })).status).toBe(200);
    const answers = await burst(600, 50, (i) => service.json("GET", "/v1/tools", { key: `atc_guess-${i % 7}_${"g".repeat(32)}`, headers: attacker }));
    expectRateLimited(answers);
    const unauthorized = answers.filter((a) => a.status === 401).length;
    expect(unauthorized).toBeLessThanOrEqual(60);
    expect((await service.json("GET", "/v1/tools", { key: `atc_${owner.id}_${"g".repeat(32)}`, headers: attacker })).status).toBe(429);
    expect((await service.json("GET", "/v1/tools", { key: owner.key, headers: attacker })).status).toBe(200);
    expect((await service.json("GET", "/v1/tools", { key: `atc_guess-1_${"g".repeat(32)}`, headers: { "cf-connecting-ip": "203.0.113.67" } })).status).toBe(
      401,
    );
    console.log(`[reliability 7] 600 bad keys from one address: ${unauthorized} × 401, then ${600 - unauthorized} × 429`);
  });

  it("never refuses a valid key for another client's failures from the same address (shared NAT), even for a tenant not seen yet", async () => {
    const nat = { "cf-connecting-ip": "198.51.100.9" };
    const answers = await burst(40, 10, (i) => service.json("GET", "/v1/tools", { key: `atc_nat-guess-${i}_${"n".repeat(32)}`, headers: nat }));
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThan(0);
    // Created after the flood and never used before: this isolate has not seen it exist.
    const neighbour = await createTenant(service, "nat-neighbour-co");
    expect((await service.json("GET", "/v1/tools", { key: neighbour.key, headers: nat })).status).toBe(200);
    // The limiter still answers guesses from that address with 429, for made-up and real tenants.
    expect((await service.json("GET", "/v1/tools", { key: `atc_nat-guess-x_${"n".repeat(32)}`, headers: nat })).status).toBe(429);
    expect((await service.json("GET", "/v1/tools", { key: `atc_${neighbour.id}_${"n".repeat(32)}`, headers: nat })).status).toBe(429);
  });

  it("stops model work when the day's tokens are used, and limits jobs in flight", async () => {
    const t = await createTenant(service, "thrifty-co");
    await service.json("POST", "/v1/tools/import", {
      key: t.key,
      body: { format: "list", tools: [{ name: "slowThing", method: "GET", url: "https://slow.example.com/thing" }] },
    });
    const set = await service.json<{ modelTokensPerDay: number }>("PUT", "/v1/settings/quotas", {
      key: t.key,
      body: { modelTokensPerDay: 1, maxConcurrentJobs: 1 },
    });
    expect(set.status).toBe(200);
    expect(set.body.modelTokensPerDay).toBe(1);
    const first = await service.json("POST", "/v1/runs", { key: t.key, body: { task: "x", tools: ["slowThing"], maxAttempts: 1 } });
    expect(first.status).not.toBe(429);
    const quotas = await service.json<{ modelTokensToday: number }>("GET", "/v1/settings/quotas", { key: t.key });
    expect(quotas.body.modelTokensToday).toBeGreaterThan(0);
    const second = await service.json<{ type: string }>("POST", "/v1/runs", { key: t.key, body: { task: "x", tools: ["slowThing"], maxAttempts: 1 } });
    expectRateLimited([second]);
    expect(second.body.type).toBe("https://atc-edge.dev/problems/quota-exceeded");

    await service.json("PUT", "/v1/settings/quotas", { key: t.key, body: { modelTokensPerDay: 5_000_000 } });
    const job = await service.json("POST", "/v1/probe", { key: t.key, body: { tools: ["slowThing"] } });
    expect(job.status).toBe(202);
    const another = await service.json<{ type: string }>("POST", "/v1/probe", { key: t.key, body: { tools: ["slowThing"] } });
    expectRateLimited([another]);
    expect(another.body.type).toBe("https://atc-edge.dev/problems/quota-exceeded");
    const invalid = await service.json("PUT", "/v1/settings/quotas", { key: t.key, body: { rates: { toolCalls: { perSecond: -1 } } } });
    expect(invalid.status).toBe(400);
  });
});

describe("a refused admission is an answer, not an exception (issue 32, item 4)", () => {
  it("the tenant object returns the refusal (workerd logs every exception an RPC method throws, with a stack)", async () => {
    const tenant = await createTenant(service, "refusal-co");
    const namespace = await service.mf.getDurableObjectNamespace("TENANTS", "atc-edge");
    const stub = namespace.get(namespace.idFromName(tenant.id)) as unknown as { admitted(keyHash: string, family: string, nowMs: number): Promise<unknown> };
    const refused = await stub.admitted(await sha256Hex(`atc_${tenant.id}_${"w".repeat(32)}`), "reads", Date.now()).then(
      (value) => ({ value }),
      (error: unknown) => ({ thrown: String(error) }),
    );
    expect(refused).toEqual({ value: { refusal: null } });
    const answer = await service.json<{ type: string }>("GET", "/v1/tools", { key: `atc_${tenant.id}_${"w".repeat(32)}` });
    expect(answer.status).toBe(401);
    expect(answer.body.type).toBe("https://atc-edge.dev/problems/unauthorized");
  });
});
