import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, startService, type TestService } from "../helpers/service";
import { tenantObject } from "../helpers/tenant-object";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";

/**
 * A chat routes the task of its first step at every later step: the tenant object remembers a
 * task's ranking (relevance-memo.ts), so a later step does not search the index again, answers as
 * computed afresh, and a change of the tools is searched again.
 */

const tools = [
  { name: "listInvoices", method: "GET", url: "https://billing.example.com/invoices", description: "List invoices." },
  { name: "getInvoice", method: "GET", url: "https://billing.example.com/invoices/{invoice_id}", description: "One invoice by id." },
  { name: "refundPayment", method: "POST", url: "https://billing.example.com/refunds", description: "Refund a payment." },
  { name: "listPayments", method: "GET", url: "https://billing.example.com/payments", description: "List payments." },
  ...["alpha", "bravo", "charlie", "delta"].map((w) => ({
    name: `${w}Status`,
    method: "GET",
    url: `https://ops.example.com/${w}`,
    description: `Status of ${w}.`,
  })),
];

let service: TestService;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => service.dispose());

const route = async (key: string, body: Record<string, unknown>) => {
  const res = await service.json<RouteAnswer>("POST", "/v1/route", { key, body });
  expect(res.status).toBe(200);
  return res.body;
};
const importTools = async (key: string, list: unknown[]) =>
  expect((await service.json("POST", "/v1/tools/import", { key, body: { format: "list", tools: list } })).status).toBe(200);

describe("a chat's later steps reuse the ranking of its task", () => {
  it("searches once per task, answers as a fresh search does, and searches again after the tools change", async () => {
    const tenant = await createTenant(service, "relevance-memo");
    const object = await tenantObject(service, tenant.id);
    await importTools(tenant.key, tools);
    const task = "Refund the payment of my last invoice";
    const before = await object.routingRelevanceSearches();

    await route(tenant.key, { task, k: 5 });
    expect(await object.routingRelevanceSearches()).toBe(before + 1);
    const later = await route(tenant.key, { task, previousTool: "listInvoices", k: 5 });
    const another = await route(tenant.key, { task, previousTool: "getInvoice", k: 5 });
    // The first step's ranking served both later steps.
    expect(await object.routingRelevanceSearches()).toBe(before + 1);
    expect(later.candidates.find((c) => c.name === "refundPayment")?.why?.relevance).toBeDefined();

    // The same answer as a fresh object computes (its memo empty).
    await object.simulateEviction();
    expect(await route(tenant.key, { task, previousTool: "listInvoices", k: 5 })).toEqual(later);
    expect(await object.routingRelevanceSearches()).toBe(1);
    expect(await route(tenant.key, { task, previousTool: "getInvoice", k: 5 })).toEqual(another);
    expect(await object.routingRelevanceSearches()).toBe(1);

    // Another task is searched.
    await route(tenant.key, { task: "Status of bravo", previousTool: "listInvoices", k: 5 });
    expect(await object.routingRelevanceSearches()).toBe(2);

    // A tool that matches the task: the index changed, so the remembered ranking no longer holds.
    await importTools(tenant.key, [
      {
        name: "refundInvoice",
        method: "POST",
        url: "https://billing.example.com/invoices/{invoice_id}/refund",
        description: "Refund the payment of an invoice.",
      },
    ]);
    const changed = await route(tenant.key, { task, previousTool: "listInvoices", k: 5 });
    expect(await object.routingRelevanceSearches()).toBe(3);
    expect(changed.candidates.find((c) => c.name === "refundInvoice")?.why?.relevance).toBeDefined();
  }, 60_000);

  it("a later step of a task no first step ranked searches only as deep as it reads; a first step for that task searches again, with API evidence", async () => {
    const tenant = await createTenant(service, "relevance-memo-later-first");
    const object = await tenantObject(service, tenant.id);
    await importTools(tenant.key, tools);
    const task = "List the payments of the invoice I was refunded for";
    const before = await object.routingRelevanceSearches();

    const later = await route(tenant.key, { task, previousTool: "getInvoice", k: 5 });
    await route(tenant.key, { task, previousTool: "listInvoices", k: 5 });
    expect(await object.routingRelevanceSearches()).toBe(before + 1);
    // The later steps' search gave no ranking with API evidence: the first step makes its own.
    await route(tenant.key, { task, k: 5 });
    expect(await object.routingRelevanceSearches()).toBe(before + 2);
    // And later steps still answer from the first search, as before.
    expect(await route(tenant.key, { task, previousTool: "getInvoice", k: 5 })).toEqual(later);
    expect(await object.routingRelevanceSearches()).toBe(before + 2);

    // A fresh object whose first step comes first searches once for both.
    await object.simulateEviction();
    await route(tenant.key, { task, k: 5 });
    expect(await route(tenant.key, { task, previousTool: "getInvoice", k: 5 })).toEqual(later);
    expect(await object.routingRelevanceSearches()).toBe(1);
  }, 60_000);
});
