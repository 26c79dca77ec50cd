import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/**
 * Each table of the tenant object has one owner: the one store module whose SQL names it. Other
 * stores reach that data through the owner's methods, never by querying its table. `tenant_meta`
 * is split by key: the registry owns the identity rows, the settings store the `setting:*` rows.
 * A store may keep its SQL in helper modules of its own (PART_OF).
 */
/** The stores, the routing engine (whose store is one of them), and the objects that hold them. */
const DIRS = ["functions/storage", "functions/routing", "durable-objects"];
const schema = readFileSync("functions/storage/tenant-schema.ts", "utf8");
const tables = [...new Set([...schema.matchAll(/CREATE TABLE IF NOT EXISTS (\w+)/g)].map((m) => m[1] as string))];
const modules = DIRS.flatMap((dir) =>
  readdirSync(dir)
    .filter((name) => name.endsWith(".ts") && name !== "tenant-schema.ts" && name !== "directory-object.ts")
    .map((name) => ({ name, text: readFileSync(`${dir}/${name}`, "utf8") })),
);

/**
 * Modules that make up one store: routing keeps its persisted index, graph rows, calibration and tool vectors in helper
 * modules; the registry its keys, tool reads and writes, credentials and tokens.
 */
const PART_OF: Record<string, string> = {
  "graph-rows.ts": "tenant-routing.ts",
  "routing-calibration.ts": "tenant-routing.ts",
  "routing-snapshots.ts": "tenant-routing.ts",
  "stored-blobs.ts": "tenant-routing.ts",
  "tool-vectors.ts": "tenant-routing.ts",
  "oauth-token-cache.ts": "tenant-registry.ts",
  "registry-keys.ts": "tenant-registry.ts",
  "registry-tool-reads.ts": "tenant-registry.ts",
  "registry-tool-writes.ts": "tenant-registry.ts",
  "registry-credentials.ts": "tenant-registry.ts",
};

function modulesNaming(table: string): string[] {
  const mention = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE)\\s+${table}\\b`);
  return [...new Set(modules.filter((m) => mention.test(m.text)).map((m) => PART_OF[m.name] ?? m.name))];
}

describe("tenant object tables", () => {
  it("finds the tables of the schema", () => {
    expect(tables).toEqual(expect.arrayContaining(["tenant_tools", "graph_trajectories", "runs", "jobs", "protocol_versions"]));
  });

  it.each(tables.filter((t) => t !== "tenant_meta" && t !== "schema_version"))("%s is queried by exactly one store", (table) => {
    expect(modulesNaming(table)).toHaveLength(1);
  });

  it("tenant_meta: identity rows by the registry, settings rows only by the settings store", () => {
    expect(modulesNaming("tenant_meta").sort()).toEqual(["tenant-registry.ts", "tenant-settings.ts"]);
    const registry = modules.find((m) => m.name === "tenant-registry.ts")?.text ?? "";
    expect(registry).not.toMatch(/setting:/);
  });
});
