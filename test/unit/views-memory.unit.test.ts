import { describe, expect, it, vi } from "vitest";
import { TOOL_VIEWS_VERSION } from "../../functions/toolnet/answer-budget";
import { TenantEvents } from "../../functions/storage/tenant-events";
import { TenantToolViews, VIEWS_WARM_SLICE, type StoredToolViews } from "../../functions/storage/tenant-tool-views";
import { ViewsMemory } from "../../functions/storage/views-memory";

const compact = (name: string) => JSON.stringify({ type: "function", function: { name, description: "d", parameters: { type: "object", properties: {} } } });

function views(name: string): StoredToolViews {
  const json = compact(name);
  return {
    compact: JSON.parse(json) as StoredToolViews["compact"],
    requiredOnly: JSON.parse(json) as StoredToolViews["requiredOnly"],
    compactJson: json,
    requiredOnlyJson: json,
    compactTokens: 10,
    requiredOnlyTokens: 10,
    runTokens: 12,
    line: `${name} line`,
  };
}

/** A stored-views row as VIEWS_AFTER answers it: the tool's current hash, then its tool_views columns. */
type Row = [string, string, string, string | null, number, string, number, string, number, number, string];
const row = (name: string, stale = false): Row => [
  `hash-${name}`,
  name,
  stale ? "an older definition" : `hash-${name}`,
  null,
  TOOL_VIEWS_VERSION,
  compact(name),
  10,
  compact(name),
  10,
  12,
  `${name} line`,
];

/** SQLite as the views store reads it: the slice query by name order, the one-read query by a JSON list of names. */
function fakeSql(rows: Row[]): { sql: SqlStorage; sliceReads: () => number; answerReads: () => number } {
  let sliceReads = 0;
  let answerReads = 0;
  const sorted = [...rows].sort((a, b) => (a[1] < b[1] ? -1 : 1));
  const cursor = (list: Row[]) => ({ raw: () => list[Symbol.iterator](), toArray: () => list, rowsWritten: 0 });
  const sql = {
    exec(query: string, ...bindings: unknown[]) {
      if (query.includes("ORDER BY t.name LIMIT ?")) {
        sliceReads += 1;
        const [after, limit] = bindings as [string, number];
        return cursor(sorted.filter((r) => r[1] > after).slice(0, limit));
      }
      if (query.includes("json_each")) {
        answerReads += 1;
        const names = new Set(JSON.parse(bindings[0] as string) as string[]);
        return cursor(sorted.filter((r) => names.has(r[1])));
      }
      return cursor([]);
    },
  };
  return { sql: sql as unknown as SqlStorage, sliceReads: () => sliceReads, answerReads: () => answerReads };
}

/** A views store whose background slices wait in a queue the test runs. */
function store(rows: Row[], memory = new ViewsMemory()) {
  const queued: (() => void)[] = [];
  const { sql, sliceReads, answerReads } = fakeSql(rows);
  const hashes = { hashOf: (tool: string) => `hash-${tool}` };
  const views = new TenantToolViews(sql, hashes, new TenantEvents(), (task) => queued.push(task), memory);
  const drain = () => {
    let turns = 0;
    while (queued.length > 0) {
      queued.shift()?.();
      turns += 1;
    }
    return turns;
  };
  return { views, drain, sliceReads, answerReads };
}

const shownTool = (tool: string) => ({ tool, description: undefined, shown: () => undefined });

describe("ViewsMemory", () => {
  it("keeps tool views within its bound of characters, least recently used dropped first", () => {
    const one = { description: null, views: views("a") };
    const size = new ViewsMemory().charsOf("a", one);
    const memory = new ViewsMemory(size * 2);
    memory.set("a", one);
    memory.set("b", { description: null, views: views("b") });
    expect(memory.get("a", null)).toBeDefined();
    memory.set("c", { description: null, views: views("c") });
    expect(memory.get("b", null)).toBeUndefined();
    expect(memory.get("a", null)).toBeDefined();
    expect(memory.chars).toBeLessThanOrEqual(size * 2);
    expect(memory.hasRoomFor(size)).toBe(false);
  });

  it("answers only for the description the views were made with", () => {
    const memory = new ViewsMemory();
    memory.set("a", { description: "A probed description.", views: views("a") });
    expect(memory.get("a", null)).toBeUndefined();
    expect(memory.get("a", "A probed description.")).toBeDefined();
  });
});

describe("TenantToolViews reads a catalog's views into memory in the background", () => {
  it("starts after an answer's first read, a slice per turn, and remembers every current row", () => {
    const rows = Array.from({ length: VIEWS_WARM_SLICE * 2 + 7 }, (_, i) => row(`tool${String(i).padStart(4, "0")}`, i === 3));
    const { views, drain, sliceReads } = store(rows);
    expect(drain()).toBe(0);
    expect(views.warmth().complete).toBe(false);
    views.viewsOfEach([shownTool("tool0001")]);
    expect(drain()).toBe(3);
    expect(sliceReads()).toBe(3);
    // The stale row (another definition's views) is left for the next answer to remake.
    expect(views.warmth()).toMatchObject({ remembered: rows.length - 1, complete: true });
    // Done: another first read starts nothing.
    views.viewsOfEach([shownTool("tool0003")]);
    expect(drain()).toBe(0);
  });

  it("stops quietly when a background read fails, and answers still read what they show", () => {
    const rows = Array.from({ length: 600 }, (_, i) => row(`tool${String(i).padStart(3, "0")}`));
    const { sql } = fakeSql(rows);
    const failing = {
      exec(query: string, ...bindings: unknown[]) {
        if (query.includes("ORDER BY t.name LIMIT ?")) throw new Error("storage gone");
        return sql.exec(query, ...(bindings as SqlStorageValue[]));
      },
    } as unknown as SqlStorage;
    const queued: (() => void)[] = [];
    const views = new TenantToolViews(failing, { hashOf: (tool) => `hash-${tool}` }, new TenantEvents(), (task) => queued.push(task));
    const warned = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    views.viewsOfEach([shownTool("tool001")]);
    expect(() => queued.shift()?.()).not.toThrow();
    expect(warned).toHaveBeenCalledOnce();
    warned.mockRestore();
    expect(queued).toHaveLength(0);
    expect(views.warmth()).toMatchObject({ remembered: 1, complete: true });
    expect(views.viewsOfEach([shownTool("tool002")]).get("tool002")?.line).toBe("tool002 line");
  });

  it("stops when memory is full, dropping none of what answers read", () => {
    const rows = Array.from({ length: 50 }, (_, i) => row(`tool${String(i).padStart(2, "0")}`));
    const per = new ViewsMemory().charsOf("tool00", { description: null, views: views("tool00") });
    const { views: store10, drain, answerReads } = store(rows, new ViewsMemory(per * 10));
    store10.viewsOfEach([shownTool("tool42")]);
    drain();
    const warmth = store10.warmth();
    expect(warmth.complete).toBe(true);
    expect(warmth.remembered).toBe(10);
    // The tool an answer read is still remembered: showing it again reads nothing.
    expect(store10.viewsOfEach([shownTool("tool42")]).get("tool42")?.line).toBe("tool42 line");
    expect(answerReads()).toBe(1);
  });
});
