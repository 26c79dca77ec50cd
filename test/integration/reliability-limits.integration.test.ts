import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
    const run = await service.json<{ type?: string; status?: string }>("POST", "/v1/runs", { key: tenant.key, body: { task: "get the thing", tools: ["getThing"], maxAttempts: 1 } });
    expect(run.status).not.toBe(500);
    const routed = await service.json("POST", "/v1/route", { key: tenant.key, body: { task: "get the thing" } });
    expect(routed.status).not.toBe(500);
    expect(outboundHosts).toContain("model.tenant-choice.example");
    expect(outboundHosts.filter((h) => h.startsWith("10."))).toEqual([]);
  });
});
