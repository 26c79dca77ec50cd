import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calibrated } from "../helpers/calibration";
import { createTenant, startService, type TestService } from "../helpers/service";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";

/**
 * Whether learned transitions take part in later steps is decided per tenant, from its own
 * remembered tasks' steps replayed with and without them (history-calibration.ts): where they hit
 * less often than the task's words alone, another task's habit would push the right tool out.
 */

const NAMES = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"];
const tool = (name: string, description: string) => ({ name, method: "GET", url: `https://ops.example.com/${name}`, description });
const tools = [
  tool("openInbox", "Open the inbox."),
  // Tools other tasks went to after the inbox, twice each: learned transitions.
  ...["archiveAll", "markRead", "snoozeAll", "exportMail", "labelAll"].map((name) => tool(name, `${name}: zorb the qux.`)),
  // Tools whose words every request below shares: they outrank each request's own tool.
  ...["reportOne", "reportTwo", "reportThree"].map((name) => tool(name, "Weekly report summary.")),
  // Each request's own tool, named by one rare word of it.
  ...NAMES.map((name) => tool(`${name}Item`, `The ${name} item.`)),
];

const habits = ["archiveAll", "markRead", "snoozeAll", "exportMail", "labelAll"].flatMap((next) =>
  [0, 1].map((i) => ({ id: `habit-${next}-${i}`, tools: ["openInbox", next] })),
);
// Requests that went from the inbox to their own tool, which the words find and the habits push out of the first 5.
const requests = NAMES.slice(0, 8).map((name) => ({ id: `request-${name}`, task: `weekly report summary for ${name}`, tools: ["openInbox", `${name}Item`] }));

let service: TestService;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => service.dispose());

async function tenantWith(name: string, trajectories: { id: string; task?: string; tools: string[] }[]): Promise<string> {
  const tenant = await createTenant(service, name);
  expect((await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools } })).status).toBe(200);
  expect((await service.json("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories } })).status).toBe(200);
  // The calibration is made off the request path (the alarm's): made here before the tenant is routed.
  await calibrated(service, name, tenant.key);
  return tenant.key;
}

/** The candidates after the inbox that a learned transition put there. */
async function byTransition(key: string, task: string): Promise<string[]> {
  const res = await service.json<RouteAnswer>("POST", "/v1/route", { key, body: { task, previousTool: "openInbox", k: 8 } });
  expect(res.status).toBe(200);
  // Finish is offered at every later step and always says its learned step to the end; the tools are what transitions rank.
  return res.body.candidates.filter((c) => c.name !== "Finish" && c.why?.transition !== undefined).map((c) => c.name);
}

describe("learned transitions take part in later steps where the tenant's own steps show them help", () => {
  it("leaves out transitions whose replay hits less often than the words alone, and keeps them on a tenant too young to judge", async () => {
    const task = "weekly report summary for india";
    // Eight remembered requests, each replayed: the habits push its own tool out of the first 5
    // (it is never there with them), so transitions are left out of this tenant's later steps.
    const judged = await tenantWith("transitions-judged", [...habits, ...requests]);
    expect(await byTransition(judged, task)).toEqual([]);

    // One remembered request is too few to judge: transitions take part.
    const young = await tenantWith("transitions-young", [...habits, ...requests.slice(0, 1)]);
    expect((await byTransition(young, task)).length).toBeGreaterThanOrEqual(3);
  }, 60_000);
});
