import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { crossFolderCycles, importGraph, loopThrough } from "../../scripts/import-graph.mjs";

/**
 * The folder rules of issue 11, checked on the import graph of functions/ and durable-objects/
 * (static imports, type imports included; `node scripts/import-cycles.mjs` prints the cycles):
 * http/ is the outer surface (REST routes, the MCP server, the console) and nothing else depends
 * on it; folders do not import each other in a circle.
 */

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
    expect(graph.get("functions/http/routes/runs.ts")).toContain("functions/http/app.ts");
  });

  it("has no module outside functions/http/ importing from it (the Worker's entry aside)", () => {
    const offenders = [...graph]
      .filter(([file]) => !inHttp(file) && file !== ENTRY)
      .flatMap(([file, targets]) => targets.filter(inHttp).map((target) => `${file} → ${target}`));
    expect(offenders, `imports into functions/http/ from outside:\n  ${offenders.join("\n  ")}`).toEqual([]);
  });

  it("has no import cycle spanning more than one folder", () => {
    expectNoCycleAcrossFolders(graph);
  });

  it("has no import cycle spanning more than one folder in what runs (type imports left out)", () => {
    expectNoCycleAcrossFolders(runtimeGraph);
  });
});
