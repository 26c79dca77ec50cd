import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { crossFolderCycles, folderOf, importGraph, loopThrough } from "../../scripts/import-graph.mjs";

/**
 * The folder rules of issue 11, checked on the import graph of functions/ and durable-objects/
 * (static imports, type imports included; `node scripts/import-cycles.mjs` prints the cycles):
 * http/ is the outer surface (REST routes, the MCP server, the console) and nothing else depends
 * on it; folders do not import each other in a circle; and folders stand in layers (below), none
 * importing a folder above it.
 */

/**
 * The folders from the bottom up (docs/architecture.md draws the same order). A folder imports
 * only folders listed before it, type imports included. Pure code first: shared basics, the
 * domain (tool definitions and their safe call, the model client and the program sandbox the
 * algorithms use, then the algorithms of the three papers); then storage (SQL persistence: the
 * tenant object's stores and the KV protocol store), the routing engine (its store over storage),
 * the tenant's API (the object's RPC surface, declared once), services (operations on one tenant through its API: runs,
 * tool calls, registration, credentials, embeddings), background jobs, the Durable Objects that
 * hold it all, and the entry points: the HTTP app and the Worker's entry (`functions`).
 */
const LAYERS: Record<string, string[]> = {
  basics: ["functions/common", "functions/text"],
  domain: [
    "functions/tenants",
    "functions/quotas",
    "functions/webhooks",
    "functions/tools",
    "functions/llm",
    "functions/sandbox",
    "functions/chain",
    "functions/prompt-play",
    "functions/probing",
    "functions/toolnet",
    "functions/simulated-world",
    "functions/demo-model",
  ],
  storage: ["functions/storage"],
  routing: ["functions/routing"],
  "tenant API": ["functions/tenant-api"],
  services: ["functions/services", "functions/jobs"],
  objects: ["durable-objects"],
  entry: ["functions/http", "functions"],
};
const FOLDER_ORDER = Object.values(LAYERS).flat();

const root = fileURLToPath(new URL("../..", import.meta.url));
const graph = importGraph(root);
const runtimeGraph = importGraph(root, { typeImports: false });

/** The Worker's entry wires the HTTP app to the platform; it is the one module allowed to reach into http/. */
const ENTRY = "functions/index.ts";
const inHttp = (file: string) => file.startsWith("functions/http/");

function expectNoCycleAcrossFolders(of: Map<string, string[]>): void {
  const cycles = crossFolderCycles(of).map(
    ({ files, folders }) => `${files.length} files across ${folders.join(", ")}; e.g. ${loopThrough(of, files[0] ?? "", files).join(" → ")}`,
  );
  expect(cycles, `import cycles across folders:\n  ${cycles.join("\n  ")}`).toEqual([]);
}

describe("architecture: the import graph", () => {
  it("sees the service's modules", () => {
    // A guard for the checks below: a graph that lost its modules would pass them vacuously.
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get(ENTRY)).toContain("functions/http/service-app.ts");
    expect(graph.get("functions/http/endpoints/runs.ts")).toContain("functions/http/app.ts");
  });

  it("has no module outside functions/http/ importing from it (the Worker's entry aside)", () => {
    const offenders = [...graph]
      .filter(([file]) => !inHttp(file) && file !== ENTRY)
      .flatMap(([file, targets]) => targets.filter(inHttp).map((target) => `${file} → ${target}`));
    expect(offenders, `imports into functions/http/ from outside:\n  ${offenders.join("\n  ")}`).toEqual([]);
  });

  it("places every folder in a layer", () => {
    const folders = [...new Set([...graph.keys()].map(folderOf))].sort();
    expect(folders.filter((folder) => !FOLDER_ORDER.includes(folder))).toEqual([]);
  });

  it("has no folder importing a folder above it (type imports included)", () => {
    const rank = (file: string) => FOLDER_ORDER.indexOf(folderOf(file));
    const upward = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => rank(target) > rank(file)).map((target) => `${folderOf(file)} → ${folderOf(target)}: ${file} → ${target}`),
    );
    expect(upward, `imports of a folder above:\n  ${upward.join("\n  ")}`).toEqual([]);
  });

  it("has no import cycle spanning more than one folder", () => {
    expectNoCycleAcrossFolders(graph);
  });

  it("has no import cycle spanning more than one folder in what runs (type imports left out)", () => {
    expectNoCycleAcrossFolders(runtimeGraph);
  });
});
