import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForJob } from "../helpers/jobs";
import { createTenant, startService, type TestService } from "../helpers/service";

/** Reliability item 9 of issue 12: probing never sends a non-GET the tenant did not allow. */

let service: TestService;
let tenant: { id: string; key: string };
const upstream: string[] = [];

const shop = {
  openapi: "3.0.3",
  info: { title: "shop", version: "1" },
  paths: {
    "/orders": {
      get: {
        operationId: "listOrders",
        responses: { "200": { description: "orders", content: { "application/json": { example: { orders: [{ id: "o1", total: 3 }] } } } } },
      },
      post: {
        operationId: "createOrder",
        requestBody: { content: { "application/json": { schema: { type: "object", properties: { item: { type: "string" } } } } } },
        responses: { "200": { description: "created", content: { "application/json": { example: { id: "o2", status: "created" } } } } },
      },
    },
    "/orders/{order_id}": {
      delete: {
        operationId: "deleteOrder",
        parameters: [{ name: "order_id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "deleted", content: { "application/json": { example: { id: "o1", deleted: true } } } } },
      },
    },
  },
};

interface Job {
  status: string;
  result: { skipped?: number; results: { tool: string; status: string; reason?: string; simulated?: boolean }[] } | null;
}

async function probe(tools: string[]): Promise<Job> {
  const started = await service.json<{ jobId: string }>("POST", "/v1/probe", { key: tenant.key, body: { tools, chainIterations: 0 } });
  expect(started.status).toBe(202);
  return waitForJob<Job>(service, tenant.key, started.body.jobId);
}

beforeAll(async () => {
  service = await startService({
    bindings: { MODEL_API_KEY: "" },
    outbound: async (request) => {
      upstream.push(`${request.method} ${new URL(request.url).pathname}`);
      if (request.method === "POST") return Response.json({ id: "real-order", status: "created" });
      if (request.method === "DELETE") return Response.json({ id: "o1", deleted: true });
      return Response.json({ orders: [{ id: "o1", total: 3 }] });
    },
  });
  tenant = await createTenant(service, "shop-co");
  const imported = await service.json("POST", "/v1/tools/import", {
    key: tenant.key,
    body: { format: "openapi", source: "shop", serverUrl: "https://api.shop-upstream.com", document: shop },
  });
  expect(imported.status).toBe(200);
});

afterAll(async () => {
  await service.dispose();
});

describe("9. probing and side effects", () => {
  it("skips a real upstream's POST by default and reports it, while GETs are probed", async () => {
    upstream.length = 0;
    const job = await probe(["listOrders", "createOrder", "deleteOrder"]);
    expect(job.status).toBe("succeeded");
    const byTool = new Map(job.result?.results.map((r) => [r.tool, r]));
    expect(byTool.get("createOrder")).toMatchObject({ status: "skipped" });
    expect(byTool.get("createOrder")?.reason).toMatch(/POST/);
    expect(byTool.get("deleteOrder")).toMatchObject({ status: "skipped" });
    expect(job.result?.skipped).toBe(2);
    expect(byTool.get("listOrders")?.status).toBe("probed");
    expect(upstream.filter((r) => !r.startsWith("GET"))).toEqual([]);
    expect(upstream.filter((r) => r.startsWith("GET")).length).toBeGreaterThan(0);
  });

  it("probes it against a simulated copy of the imported definition when the tenant asks, sending nothing upstream", async () => {
    const set = await service.json("PUT", "/v1/settings/side-effects", { key: tenant.key, body: { simulatedUnsafe: { tools: ["createOrder"] } } });
    expect(set.status).toBe(200);
    upstream.length = 0;
    const job = await probe(["createOrder"]);
    const result = job.result?.results.find((r) => r.tool === "createOrder");
    expect(result, JSON.stringify(job)).toMatchObject({ status: "probed", simulated: true });
    expect(upstream).toEqual([]);
    const protocol = await service.json<{ protocol: { responseSchema: Record<string, unknown> } }>("GET", "/v1/tools/createOrder/protocol", {
      key: tenant.key,
    });
    expect(JSON.stringify(protocol.body.protocol.responseSchema)).toContain("status");
  });

  it("calls the real upstream only for a source the tenant allowed", async () => {
    const set = await service.json("PUT", "/v1/settings/side-effects", { key: tenant.key, body: { realUnsafe: { sources: ["shop"] } } });
    expect(set.status).toBe(200);
    upstream.length = 0;
    const job = await probe(["deleteOrder"]);
    expect(job.result?.results.find((r) => r.tool === "deleteOrder")?.status, JSON.stringify(job)).toBe("probed");
    expect(upstream.filter((r) => r.startsWith("DELETE")).length).toBeGreaterThan(0);
  });
});
