/**
 * The tenants cold-route and route-throughput compare: a big one of generated tools (StableToolBench's
 * operations and renamed copies, ≈ 10 observed successors each, as route-latency sets them up) and
 * a small one, RestBench's TMDB document (54 tools), both routed once their routing state is
 * prepared (the tenant object's alarm stores the index and data flow after a catalog change).
 */
import { readFileSync } from "node:fs";
import { createTenant, type TestService } from "../../test/helpers/service";
import { setUpTenant, tenantObject } from "./bench-service";
import { corpusItems, type ListItem, readData, recordedTrajectories, syntheticWalks, toolItems } from "./tool-corpus";
import { withContentLength } from "./sized-request";

export interface BenchTenant {
  id: string;
  key: string;
  tools: number;
}

/** StableToolBench's retrieval queries: the tasks routed. */
export function benchQueries(): string[] {
  return (readData("stabletoolbench/retrieval_queries.json") as { query: string }[]).map((q) => q.query);
}

/** What Microsoft Graph's operations share beside their own words (its long descriptions end with it). */
const GRAPH_LIKE_TAIL =
  " This API is available in the following national cloud deployments: global service, US Government L4, US Government L5 (DOD), China operated by 21Vianet. Choose the permission or permissions marked as least privileged for this API; use a higher privileged permission only if your app requires it.";

/**
 * The generated tools as operations of ONE API (one server URL, as Microsoft Graph's 11,422 are),
 * each path the tool's own host and path under it, each description Graph-long.
 */
function asOneApi(items: readonly ListItem[]): ListItem[] {
  return items.map((item) => {
    const url = new URL(item.url);
    return {
      ...item,
      url: `https://graph.bench.example/v1.0/${url.hostname.split(".")[0]}${url.pathname}`,
      description: `${item.description}${GRAPH_LIKE_TAIL}`,
    };
  });
}

/** A tenant of `size` generated tools with ≈ 10 observed successors per tool; `oneApi`: all of them one API's operations. */
export async function bigTenant(service: TestService, size: number, oneApi = false): Promise<BenchTenant> {
  const generated = toolItems(size, corpusItems());
  const items = oneApi ? asOneApi(generated) : generated;
  const names = items.map((i) => i.name);
  const trajectories = [...recordedTrajectories(new Set(names)), ...syntheticWalks(names, 10, size)];
  const id = oneApi ? `big-one-api-${size}` : `big-${size}`;
  const setup = await setUpTenant(service, id, items, trajectories);
  return { id, key: setup.key, tools: size };
}

/** RestBench's TMDB document, imported as OpenAPI (54 tools). */
export async function smallTenant(service: TestService): Promise<BenchTenant> {
  const tenant = await createTenant(service, "small-tmdb");
  const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as unknown;
  const imported = await service.json<{ created: string[] }>("POST", "/v1/tools/import", { key: tenant.key, body: { format: "openapi", document: tmdb } });
  if (imported.status !== 200) throw new Error(`TMDB import answered ${imported.status}`);
  return { id: tenant.id, key: tenant.key, tools: imported.body.created.length };
}

/** Waits until the tenant object's alarm has prepared routing after the catalog changed. */
export async function prepared(service: TestService, tenant: BenchTenant): Promise<void> {
  const object = await tenantObject(service, tenant.id);
  while ((await object.store("routing").preparationDue()) !== null) await new Promise((r) => setTimeout(r, 200));
}

/** Lifts the tenant's rate quotas: the load is what is measured, not the limits. */
export async function liftQuotas(service: TestService, tenant: BenchTenant): Promise<void> {
  const loose = { perSecond: 10_000, burst: 100_000 };
  const answer = await service.json("PUT", "/v1/settings/quotas", { key: tenant.key, body: { rates: { reads: loose, routing: loose, writes: loose } } });
  if (answer.status !== 200) throw new Error(`quota settings answered ${answer.status}`);
}

/** One route (a first step without `previousTool`), timed from sending to having read the answer; its candidates' names. */
export async function routeStep(
  service: TestService,
  tenant: BenchTenant,
  body: { task: string; k: number; previousTool?: string },
): Promise<{ ms: number; names: string[] }> {
  const init = { method: "POST", headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" }, body: JSON.stringify(body) };
  const t0 = performance.now();
  const response = await service.mf.dispatchFetch("http://atc.test/v1/route", withContentLength(init) as never);
  const text = await response.text();
  const ms = performance.now() - t0;
  if (response.status !== 200) throw new Error(`route answered ${response.status}: ${text.slice(0, 300)}`);
  return { ms, names: ((JSON.parse(text) as { candidates?: { name: string }[] }).candidates ?? []).map((c) => c.name) };
}

/** One first step, timed; how many candidates it held. */
export async function firstStep(service: TestService, tenant: BenchTenant, task: string, k: number): Promise<{ ms: number; candidates: number }> {
  const { ms, names } = await routeStep(service, tenant, { task, k });
  return { ms, candidates: names.length };
}
