/**
 * The service in workerd exactly as the integration tests run it (wrangler bundles in
 * .test-build/, Miniflare with SQLite Durable Objects), plus tenant setup at a given scale
 * through the public HTTP API. No network: Miniflare's outbound goes to the test helper's
 * default handler, and nothing here fetches anything but the in-process service.
 */
import { existsSync } from "node:fs";
import buildBundles from "../../test/helpers/global-setup";
import { createTenant, startService, type ServiceOptions, type TestService } from "../../test/helpers/service";
import type { Trajectory } from "../../functions/toolnet/graph";
import { batches, type ListItem } from "./tool-corpus";

/** Bundle (unless --skip-build and bundles exist) and start; returns the service and build time. */
export async function startBenchService(options: ServiceOptions = {}): Promise<{ service: TestService; buildMs: number; startMs: number }> {
  let buildMs = 0;
  const haveBundles = existsSync(".test-build/main") && existsSync(".test-build/world");
  if (!(process.argv.includes("--skip-build") && haveBundles)) {
    const t0 = performance.now();
    buildBundles();
    buildMs = performance.now() - t0;
  }
  const t1 = performance.now();
  const service = await startService(options);
  return { service, buildMs, startMs: performance.now() - t1 };
}

export interface TenantSetup {
  tenantId: string;
  key: string;
  toolImportMs: number;
  toolBatches: number;
  trajectoryImportMs: number;
  trajectoryBatches: number;
  transitions: number;
}

/** Import bodies stay well under MAX_BODY_BYTES (8 MiB). */
const MAX_BATCH_BYTES = 6 * 1024 * 1024;

/** Create a tenant, register `items` as tools, import `trajectories`; every step checked. */
export async function setUpTenant(
  service: TestService,
  tenantId: string,
  items: readonly ListItem[],
  trajectories: readonly Trajectory[],
): Promise<TenantSetup> {
  const { key } = await createTenant(service, tenantId);
  const t0 = performance.now();
  const toolBatches = batches(items, 2_500, MAX_BATCH_BYTES);
  let created = 0;
  for (const batch of toolBatches) {
    const answer = await service.json<{ created: string[] }>("POST", "/v1/tools/import", {
      key,
      body: { format: "list", source: "stabletoolbench", tools: batch },
    });
    if (answer.status !== 200) throw new Error(`tool import failed: ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`);
    created += answer.body.created.length;
  }
  if (created !== items.length) throw new Error(`tool import created ${created} tools, expected ${items.length}`);
  const toolImportMs = performance.now() - t0;

  const t1 = performance.now();
  const trajectoryBatches = batches(trajectories, 10_000, MAX_BATCH_BYTES);
  let transitions = 0;
  for (const batch of trajectoryBatches) {
    const answer = await service.json<{ added: string[]; transitions: number }>("POST", "/v1/graph/trajectories", {
      key,
      body: { trajectories: batch, unknownTools: "skip" },
    });
    if (answer.status !== 200) throw new Error(`trajectory import failed: ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`);
    if (answer.body.added.length !== batch.length) throw new Error(`trajectory import added ${answer.body.added.length} of ${batch.length}`);
    transitions += answer.body.transitions;
  }
  return {
    tenantId,
    key,
    toolImportMs,
    toolBatches: toolBatches.length,
    trajectoryImportMs: performance.now() - t1,
    trajectoryBatches: trajectoryBatches.length,
    transitions,
  };
}

/** The tenant's Durable Object (Miniflare's namespace), for its test hooks and store calls. */
export { tenantObject } from "../../test/helpers/tenant-object";
