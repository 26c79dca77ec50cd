import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type TestService } from "../helpers/service";
import { declaredSurface } from "../helpers/declared-surface";
import { tenantObject } from "../helpers/tenant-object";

/**
 * Over RPC the tenant object offers only what the Worker calls (issue 28): its store getters, the
 * operations that span stores, admission, and per store only the methods the Worker uses. The
 * object's own steps (starting a job, saving a run, queueing an evaluation, the registry's hashes,
 * unbatched score writes) stay inside it. The surface and admission are declared once, in
 * functions/tenant-api/ (issue 44); what RPC reaches (the face classes' prototypes) and the docs' table are compared
 * with that declaration, read from its source.
 */
const DECLARED = declaredSurface();
const STORES = Object.keys(DECLARED.stores);
/** `alarm` is the runtime's handler of the object's alarm, not a method the Worker calls. */
const OBJECT_MEMBERS = [...STORES, ...DECLARED.operations, ...DECLARED.admission, "alarm"].sort();

let service: TestService;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => service.dispose());

describe("the tenant object's RPC surface", () => {
  it("offers only the store getters, the operations, admission and the alarm handler", async () => {
    const surface = await (await tenantObject(service, "rpc-surface")).rpcSurface();
    expect(surface.object).toEqual(OBJECT_MEMBERS);
    expect(surface.surface).toEqual([...STORES, ...DECLARED.operations].sort());
  });

  it("reads a declaration that names every store and the operations", () => {
    // A guard for the comparisons below: a declaration read as empty would make them vacuous.
    expect(STORES).toEqual(expect.arrayContaining(["registry", "routing", "runs", "observed"]));
    expect(DECLARED.stores.routing).toContain("route");
    expect([...DECLARED.operations].sort()).toEqual(["applyFeedback", "applyFeedbackBatch", "storageBytes"]);
    expect([...DECLARED.admission].sort()).toEqual(["admit", "admitGranted", "admitted"]);
  });

  it("reaches on each store only the methods its face declares", async () => {
    const surface = await (await tenantObject(service, "rpc-surface")).rpcSurface();
    expect(surface.stores).toEqual(Object.fromEntries(Object.entries(DECLARED.stores).map(([store, methods]) => [store, [...methods].sort()])));
    // The object's own steps are among what stays inside.
    expect(surface.stores.jobs).not.toContain("start");
    expect(surface.stores.jobs).not.toContain("retryLater");
    expect(surface.stores.runs).not.toContain("save");
    expect(surface.stores.runs).not.toContain("enqueueEvaluation");
    expect(surface.stores.registry).not.toContain("hashes");
    expect(surface.stores.routing).not.toContain("applyScoresEach");
  });

  it("is declared as docs/architecture.md lists it", () => {
    const docs = readFileSync("docs/architecture.md", "utf8");
    const start = docs.indexOf("### What the Worker may call");
    const section = docs.slice(start, docs.indexOf("\n## ", start));
    const rows = section.split("\n").filter((l) => /^\| `\w+` \|/.test(l));
    expect(rows.map((row) => /`(\w+)`/.exec(row)?.[1]).sort()).toEqual([...STORES].sort());
    for (const [store, methods] of Object.entries(DECLARED.stores)) {
      const line = section.split("\n").find((l) => l.startsWith(`| \`${store}\` |`));
      expect(line, `docs row of ${store}`).toBeDefined();
      const listed = [...(line ?? "").matchAll(/`(\w+)`/g)].map((m) => m[1]).slice(1);
      expect(listed.sort(), store).toEqual([...methods].sort());
    }
    const admission = section.split("\n").find((l) => l.startsWith("| (admission) |"));
    expect(admission, "docs row of admission").toBeDefined();
    expect([...(admission ?? "").matchAll(/`(\w+)`/g)].map((m) => m[1]).sort()).toEqual([...DECLARED.admission].sort());
  });
});
