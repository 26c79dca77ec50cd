import { beforeAll, describe, expect, it } from "vitest";
import { DataFlowIndex, FlowSamples, flowTool, OutputIndex, outputFields, type FlowTool } from "../../functions/toolnet/data-flow";
import type { SampleValue } from "../../functions/probing/protocol";
import { DataFlowLinks } from "../../functions/toolnet/data-flow-links";
import { withNameLookups } from "../../functions/toolnet/name-lookup";
import type { ToolDefinition } from "../../functions/tools/definition";
import { getTool, tmdbTools } from "../helpers/tmdb-routing";

let tmdb: Map<string, ToolDefinition>;

beforeAll(async () => {
  tmdb = await tmdbTools();
});

const tool = getTool;

/** TMDB plus a small API of its own: orders found by text, read by id, and a tool without outputs. */
function catalog(): Map<string, ToolDefinition> {
  const extra = [
    tool("searchOrders", "/orders/search", [{ name: "query", in: "query", required: true, schema: { type: "string" } }], {
      type: "object",
      properties: { orders: { type: "array", items: { type: "object", properties: { order_id: { type: "integer" }, status: { type: "string" } } } } },
    }),
    tool("getOrder", "/orders/{order_id}", [{ name: "order_id", in: "path", required: true, schema: {} }]),
    tool("cancelOrder", "/orders/{order_id}/cancel", [{ name: "order_id", in: "path", required: true, schema: {} }]),
  ];
  return new Map([...tmdb, ...extra.map((def) => [def.name, def] as const)]);
}

/** The table of `defs` (within the bound). */
function table(defs: ReadonlyMap<string, ToolDefinition>): DataFlowLinks {
  const links = DataFlowLinks.compute(new DataFlowIndex(defs), defs.keys());
  if (links === undefined) throw new Error("more links than the table holds");
  return links;
}

/** What a request computed before the table: a fresh index asked for one tool. */
function perRequest(defs: ReadonlyMap<string, ToolDefinition>, name: string): { successors: unknown; producers: unknown } {
  const fresh = new DataFlowIndex(defs);
  return { successors: fresh.successors(name), producers: new DataFlowIndex(defs).producers(name) };
}

/**
 * The index as routing makes it for a big tenant: tools in their compact form, the output index
 * filled one tool at a time, and per tool only the samples data flow can offer.
 */
function compactIndex(defs: ReadonlyMap<string, ToolDefinition>): { index: DataFlowIndex<FlowTool>; kept: number; all: number } {
  const tools = new Map([...defs.values()].map((def) => [def.name, flowTool(def)] as const));
  const offerable = new FlowSamples(tools.values());
  const outputs = new OutputIndex();
  const samples = new Map<string, SampleValue[]>();
  let all = 0;
  for (const def of defs.values()) {
    const fields = outputFields(def);
    all += fields.length;
    outputs.add(def, fields);
    samples.set(def.name, offerable.offerable(fields));
  }
  const kept = [...samples.values()].reduce((n, list) => n + list.length, 0);
  return { index: new DataFlowIndex(tools, (tool) => samples.get(tool.name) ?? [], outputs), kept, all };
}

describe("data-flow over compact tools", () => {
  it("links every tool as over whole definitions, keeping no description, response schema or optional input's schema", () => {
    const defs = catalog();
    const { index, kept, all } = compactIndex(defs);
    const whole = table(defs);
    const compact = DataFlowLinks.compute(index, defs.keys());
    expect(compact?.linkCount).toBe(whole.linkCount);
    for (const name of defs.keys()) {
      // Name lookups asked first of a fresh index score only possible lookups, and are the by-name producers.
      const byName = whole.producers(name).filter((s) => s.byName);
      expect(compactIndex(defs).index.nameLookups(name)).toEqual(byName);
      expect(whole.nameLookups(name)).toEqual(byName);
      // Asked per request of a fresh compact index too (producers scored one consumer at a time).
      const fresh = compactIndex(defs).index;
      expect({ successors: fresh.successors(name), producers: fresh.producers(name) }).toEqual({
        successors: whole.successors(name),
        producers: whole.producers(name),
      });
      expect({ successors: compact?.successors(name), producers: compact?.producers(name) }).toEqual({
        successors: whole.successors(name),
        producers: whole.producers(name),
      });
    }
    // Fewer samples kept than the tools return (names no input takes), and still the same links.
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(all / 2);
    const search = flowTool(
      tool("searchThings", "/things", [
        { name: "query", in: "query", required: true, description: "words", schema: { type: "string" } },
        { name: "sort", in: "query", required: false, description: "order", schema: { enum: ["a", "b"] } },
      ]),
    );
    expect(search).toEqual({
      name: "searchThings",
      path: "/things",
      serverUrl: expect.any(String),
      parameters: [
        { name: "query", in: "query", required: true, schema: { type: "string" } },
        { name: "sort", in: "query", required: false, schema: {} },
      ],
    });
  });
});

describe("data-flow links computed once per catalog", () => {
  it("gives up the table once linking has done more work than its budget, as past the link bound", () => {
    const defs = catalog();
    const index = new DataFlowIndex(defs);
    expect(DataFlowLinks.compute(index, defs.keys(), Number.MAX_SAFE_INTEGER, () => index.offers > 10)).toBeUndefined();
    expect(index.offers).toBeGreaterThan(10);
    const unbounded = new DataFlowIndex(defs);
    expect(DataFlowLinks.compute(unbounded, defs.keys(), Number.MAX_SAFE_INTEGER, () => unbounded.offers > 1e9)?.linkCount).toBe(table(defs).linkCount);
  });

  it("gives every tool the successors and producers a per-request computation gives, also read back from its stored bytes", () => {
    const defs = catalog();
    const links = table(defs);
    const stored = DataFlowLinks.fromBytes(links.toBytes());
    expect(stored).toBeDefined();
    expect(links.linkCount).toBeGreaterThan(20);
    for (const name of defs.keys()) {
      const expected = perRequest(defs, name);
      expect({ successors: links.successors(name), producers: links.producers(name) }).toEqual(expected);
      expect({ successors: stored?.successors(name), producers: stored?.producers(name) }).toEqual(expected);
    }
    expect(links.successors("searchOrders").map((l) => l.to)).toEqual(["cancelOrder", "getOrder"]);
    expect(links.nameLookups("getOrder").map((s) => s.from)).toEqual(["searchOrders"]);
    expect(links.producers("getOrder")).toEqual([
      { from: "searchOrders", parameter: "order_id", field: "orders[].order_id", score: expect.any(Number), byName: true },
    ]);
    expect(links.successors("no-such-tool")).toEqual([]);
  });

  it("places the same name lookups as the per-request producers", () => {
    const defs = catalog();
    const links = DataFlowLinks.fromBytes(table(defs).toBytes());
    const index = new DataFlowIndex(defs);
    const ranked = ["getPersonPersonIdMovieCredits", "getMovieMovieIdCredits", "getOrder"].map((tool, i) => ({ tool, score: 3 - i, why: {} }));
    const task = "Which movies did Sofia Coppola direct?";
    const fromTable = withNameLookups(ranked, task, (name) => links?.producers(name) ?? []);
    expect(fromTable).toEqual(withNameLookups(ranked, task, (name) => index.producers(name)));
    expect(fromTable.map((c) => c.tool)).toContain("getSearchPerson");
  });

  it("holds only what it was computed from: a tool added later has no links until the table is computed again", () => {
    const defs = catalog();
    const before = table(defs);
    const refund = tool("refundOrder", "/orders/{order_id}/refund", [{ name: "order_id", in: "path", required: true, schema: {} }]);
    defs.set(refund.name, refund);
    expect(before.successors("searchOrders").map((l) => l.to)).not.toContain("refundOrder");
    const after = table(defs);
    expect(after.successors("searchOrders").map((l) => l.to)).toContain("refundOrder");
    defs.delete("getOrder");
    const removed = table(defs);
    expect(removed.successors("searchOrders").map((l) => l.to)).not.toContain("getOrder");
    expect(removed.producers("getOrder")).toEqual([]);
  });

  it("tables no catalog with more links than its bound, and stops looking once past it", () => {
    const defs = catalog();
    const all = table(defs).linkCount;
    expect(DataFlowLinks.compute(new DataFlowIndex(defs), defs.keys(), all)?.linkCount).toBe(all);
    expect(DataFlowLinks.compute(new DataFlowIndex(defs), defs.keys(), all - 1)).toBeUndefined();
  });

  it("stores a catalog without documented outputs in a few bytes, and rejects bytes that are not a table", () => {
    const bare = new Map([tool("a", "/a", []), tool("b", "/b/{b_id}", [{ name: "b_id", in: "path", required: true, schema: {} }])].map((d) => [d.name, d]));
    const links = table(bare);
    expect(links.linkCount).toBe(0);
    expect(links.toBytes().byteLength).toBeLessThan(64);
    expect(DataFlowLinks.fromBytes(new TextEncoder().encode("not json"))).toBeUndefined();
    expect(DataFlowLinks.fromBytes(new TextEncoder().encode('{"tools":[],"strings":[],"successors":[[5,[1,0,0,1]]],"producers":[]}'))).toBeUndefined();
  });

  it("lists producers from the successors it linked, scoring no candidate again", () => {
    const defs = catalog();
    const { index } = compactIndex(defs);
    // The table's producers after every successor list was made: asked again, each candidate was scored
    // again one consumer at a time (12 ms a target at 1,200 generated tools), to find what its list said.
    const links = DataFlowLinks.compute(index, defs.keys());
    expect(links).toBeDefined();
    const fresh = compactIndex(defs).index;
    for (const name of defs.keys()) fresh.successors(name);
    const offersAfterSuccessors = fresh.offers;
    for (const name of defs.keys()) expect(fresh.producers(name)).toEqual(links?.producers(name));
    expect(fresh.offers).toBe(offersAfterSuccessors);
  });

  it("computes the same table in pieces, pausing whenever a piece's work is done", () => {
    const defs = catalog();
    const whole = table(defs);
    const { index } = compactIndex(defs);
    let asks = 0;
    let pauses = 0;
    const pieces = DataFlowLinks.computeInPieces(index, defs.keys(), { maxLinks: 50_000, exhausted: () => false, pieceOver: () => ++asks % 10 === 0 });
    let step = pieces.next();
    for (; !step.done; step = pieces.next()) pauses += 1;
    expect(pauses).toBe(Math.floor(asks / 10));
    expect(pauses).toBeGreaterThan(5);
    for (const name of defs.keys()) {
      expect(step.value?.successors(name)).toEqual(whole.successors(name));
      expect(step.value?.producers(name)).toEqual(whole.producers(name));
    }
  });
});
