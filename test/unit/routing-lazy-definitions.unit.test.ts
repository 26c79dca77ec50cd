import { describe, expect, it } from "vitest";
import { LazyDefinitions } from "../../functions/routing/lazy-definitions";
import { ApiFamilies, apiSiblings } from "../../functions/toolnet/api-siblings";
import { ToolDefinition } from "../../functions/tools/definition";

function definition(i: number, server = `https://api${i % 3}.example.com`): ToolDefinition {
  return ToolDefinition.parse({
    name: `tool${String(i).padStart(3, "0")}`,
    method: "GET",
    serverUrl: server,
    path: `/things/${i}`,
    operation: `GET /things/${i}`,
    ...(i % 2 === 0 ? { summary: `Thing ${i}` } : {}),
    description: "x".repeat(900),
  });
}

/** Rows as the registry gives them, counting the reads. */
function rows(defs: ToolDefinition[]) {
  const texts = new Map(defs.map((def) => [def.name, JSON.stringify(def)]));
  const reads = { one: 0, streamed: 0 };
  return {
    reads,
    source: {
      names: () => [...texts.keys()],
      text: (name: string) => {
        reads.one += 1;
        return texts.get(name);
      },
      startingList: () => [],
      *eachText() {
        for (const text of texts.values()) {
          reads.streamed += 1;
          yield text;
        }
      },
    },
  };
}

describe("lazy definitions", () => {
  const defs = Array.from({ length: 100 }, (_, i) => definition(i));
  const chars = JSON.stringify(defs[0]).length;

  it("keeps only the most recently used definitions within its bound, and parses again what it let go", () => {
    const { source, reads } = rows(defs);
    const lazy = new LazyDefinitions(source, chars * 10);
    for (const def of defs) expect(lazy.get(def.name)).toEqual(def);
    expect(lazy.parsedCount).toBe(10);
    // The last ten are kept: read again without a row read; the first is read again.
    lazy.get("tool099");
    expect(reads.one).toBe(100);
    expect(lazy.get("tool000")).toEqual(defs[0]);
    expect(reads.one).toBe(101);
    expect(lazy.parsedCount).toBe(10);
    expect(lazy.get("no-such-tool")).toBeUndefined();
  });

  it("streams every definition when iterated, keeping none, and follows the registry's changes", () => {
    const { source, reads } = rows(defs);
    const lazy = new LazyDefinitions(source, chars * 10);
    expect([...lazy.values()]).toEqual(defs);
    expect([...lazy.keys()]).toEqual(defs.map((def) => def.name));
    expect(reads.streamed).toBe(100);
    expect(lazy.parsedCount).toBe(0);
    expect(lazy.parses).toBe(100);
    // A removed tool is neither got nor streamed (the rows may still hold it inside the change).
    lazy.delete("tool005");
    expect(lazy.has("tool005")).toBe(false);
    expect(lazy.get("tool005")).toBeUndefined();
    expect([...lazy.entries()].map(([name]) => name)).not.toContain("tool005");
    const changed = { ...definition(7), description: "changed" };
    lazy.set(changed.name, changed);
    expect(lazy.get(changed.name)).toBe(changed);
    expect(lazy.size).toBe(99);
  });
});

describe("API families from light rows", () => {
  it("gives the siblings apiSiblings gives, with the summaries a document shows, and drops APIs too big to narrow", () => {
    const defs = [
      ...Array.from({ length: 9 }, (_, i) => definition(i)),
      ...Array.from({ length: 30 }, (_, i) => definition(100 + i, "https://big.example.com")),
    ];
    const families = new ApiFamilies(defs.map(({ name, serverUrl, summary }) => (summary === undefined ? { name, serverUrl } : { name, serverUrl, summary })));
    expect(families.siblings).toEqual(apiSiblings(defs));
    expect(families.of("tool000")).toEqual([{ name: "tool003" }, { name: "tool006", summary: "Thing 6" }]);
    expect(families.of("tool100")).toEqual([]);
  });
});
