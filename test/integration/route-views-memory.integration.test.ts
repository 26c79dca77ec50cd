import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolViews } from "../../functions/toolnet/answer-budget";
import { ToolDefinition } from "../../functions/tools/definition";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";
import { createTenant, startService, type TestService } from "../helpers/service";
import { tenantObject } from "../helpers/tenant-object";

/**
 * A later step's successors are often tools no answer has shown yet. After an answer first reads
 * views from SQLite, the tenant object reads the rest of the catalog's stored views into memory in
 * the background (tenant-tool-views.ts), so such a step reads none: it shows the views memory holds.
 */

const AREAS = ["invoice", "shipment", "ticket", "playlist"];
const tools = AREAS.flatMap((area) =>
  Array.from({ length: 10 }, (_, i) => ({
    name: `${area}Action${i}`,
    method: "GET",
    url: `https://${area}.example.com/v1/${area}s/action${i}`,
    description: `Action ${i} on a ${area}: looks the ${area} up and reports step ${i}.`,
    parameters: [{ name: `${area}_id`, in: "query", required: true, type: "string", description: `The ${area}.` }],
  })),
);

let service: TestService;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => service.dispose());

const route = async (key: string, body: Record<string, unknown>): Promise<RouteAnswer> => {
  const res = await service.json<RouteAnswer>("POST", "/v1/route", { key, body });
  expect(res.status).toBe(200);
  return res.body;
};

describe("a tenant object keeps its catalog's tool views in memory", () => {
  it("reads the rest of the stored views in the background after an answer's first read, so a later step shows views memory holds", async () => {
    const tenant = await createTenant(service, "views-memory");
    const object = await tenantObject(service, tenant.id);
    expect((await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools } })).status).toBe(200);
    // The playlist tools follow invoiceAction0 in observed chats: a later step after it shows them.
    const trajectories = Array.from({ length: 10 }, (_, i) => ({ id: `chat-${i}`, tools: ["invoiceAction0", `playlistAction${i}`] }));
    expect((await service.json("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories } })).status).toBe(200);
    await object.simulateEviction();
    expect(await object.toolViewsWarmth()).toEqual({ remembered: 0, chars: 0, complete: false });

    const first = await route(tenant.key, { task: "look the invoice up", k: 5 });
    expect(first.candidates.every((c) => c.name.startsWith("invoice"))).toBe(true);
    await expect.poll(async () => (await object.toolViewsWarmth()).complete, { timeout: 10_000, interval: 20 }).toBe(true);
    const warmth = await object.toolViewsWarmth();
    expect(warmth.remembered).toBe(tools.length);
    expect(warmth.chars).toBeGreaterThan(0);

    // SQLite now holds other views: an answer that read them would show this one.
    const marker = { type: "function", function: { name: "marker", description: "Read from SQLite.", parameters: { type: "object", properties: {} } } };
    await object.overwriteStoredCompactViews(marker);
    const later = await route(tenant.key, { task: "look the playlist up", previousTool: "invoiceAction0", k: 5 });
    const shown = later.tools ?? [];
    expect(shown.length).toBe(5);
    expect(shown.every((t) => t.function.name.startsWith("playlist"))).toBe(true);
    for (const entry of shown) {
      const { body } = await service.json<{ definition: unknown }>("GET", `/v1/tools/${entry.function.name}`, { key: tenant.key });
      expect(entry).toEqual(toolViews(ToolDefinition.parse(body.definition)).compact);
    }
  }, 60_000);
});
