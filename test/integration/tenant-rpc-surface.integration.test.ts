import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type TestService } from "../helpers/service";
import { tenantObject } from "../helpers/tenant-object";

/**
 * Over RPC the tenant object offers only what the Worker calls (issue 28): its store getters, the
 * operations that span stores, admission, and per store only the methods the Worker uses. The
 * object's own steps (starting a job, saving a run, queueing an evaluation, the registry's hashes,
 * unbatched score writes) stay inside it. A method added to a store is private until it is listed
 * in tenant-api/store-faces.ts; this list and the docs' list must change with it.
 */
const STORE_METHODS: Record<string, string[]> = {
  activity: ["runs", "tools"],
  idempotency: ["abandon", "begin", "complete"],
  imports: ["appendUpload", "discardUpload"],
  jobs: ["create", "get", "list", "waitFor"],
  observed: ["close", "curve", "delete", "learningSettings", "list", "recordCall", "recordSearch", "updateLearningSettings"],
  optimization: ["settings", "update"],
  protocols: ["currentMany", "pin", "versions"],
  quotas: ["modelTokensToday", "settings", "update"],
  registry: [
    "authenticate",
    "cacheToken",
    "cachedToken",
    "createKey",
    "deleteCredential",
    "deleteTool",
    "getTool",
    "info",
    "initialize",
    "listCredentials",
    "listKeys",
    "listTools",
    "putCredential",
    "revokeKey",
    "toolCountAfter",
    "toolForCall",
    "toolSummaries",
    "upsertTools",
  ],
  routing: [
    "importTrajectories",
    "replaceWith",
    "route",
    "routeJson",
    "routeJsonUnlessEmbedded",
    "routeUnlessEmbedded",
    "settings",
    "snapshot",
    "storeEmbeddings",
    "toolsNeedingEmbeddings",
    "updateSettings",
    "weightedEdges",
  ],
  runSlots: ["begin", "finish", "release"],
  runs: ["evaluationStatus", "get", "list"],
  settings: ["get", "put", "runSettings", "sideEffects", "updateRunSettings", "updateSideEffects"],
  webhooks: ["addSecret", "claimDelivery", "completeDelivery", "failDelivery", "listSecrets", "validSecrets"],
};
const STORES = Object.keys(STORE_METHODS);
const OPERATIONS = ["applyFeedback", "applyFeedbackBatch", "storageBytes"];
/** `alarm` is the runtime's handler of the object's alarm, not a method the Worker calls. */
const OBJECT_MEMBERS = [...STORES, ...OPERATIONS, "admit", "admitted", "alarm"].sort();

let service: TestService;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => service.dispose());

describe("the tenant object's RPC surface", () => {
  it("offers only the store getters, the operations, admission and the alarm handler", async () => {
    const surface = await (await tenantObject(service, "rpc-surface")).rpcSurface();
    expect(surface.object).toEqual(OBJECT_MEMBERS);
    expect(surface.surface).toEqual([...STORES, ...OPERATIONS].sort());
  });

  it("reaches on each store only the methods the Worker calls", async () => {
    const surface = await (await tenantObject(service, "rpc-surface")).rpcSurface();
    expect(surface.stores).toEqual(Object.fromEntries(Object.entries(STORE_METHODS).map(([store, methods]) => [store, [...methods].sort()])));
    // The object's own steps are among what stays inside.
    expect(surface.stores.jobs).not.toContain("start");
    expect(surface.stores.jobs).not.toContain("retryLater");
    expect(surface.stores.runs).not.toContain("save");
    expect(surface.stores.runs).not.toContain("enqueueEvaluation");
    expect(surface.stores.registry).not.toContain("hashes");
    expect(surface.stores.routing).not.toContain("applyScoresEach");
  });

  it("is the list docs/architecture.md gives", () => {
    const docs = readFileSync("docs/architecture.md", "utf8");
    const section = docs.slice(docs.indexOf("### What the Worker may call"));
    for (const [store, methods] of Object.entries(STORE_METHODS)) {
      const line = section.split("\n").find((l) => l.startsWith(`| \`${store}\` |`));
      expect(line, `docs row of ${store}`).toBeDefined();
      const listed = [...(line ?? "").matchAll(/`(\w+)`/g)].map((m) => m[1]).slice(1);
      expect(listed.sort(), store).toEqual([...methods].sort());
    }
  });
});
