import { afterEach, describe, expect, it, vi } from "vitest";
import { DataFlowIndex, type FlowTool, OutputIndex } from "../../functions/toolnet/data-flow";
import { flowStateIndex } from "../../functions/toolnet/data-flow-state";
import { decodeFlowState, encodeFlowState, flowRecordsRead } from "../../functions/toolnet/flow-samples-codec";
import { PRODUCERS_PER_TOOL } from "../../functions/toolnet/signal-fusion";
import { ENTITIES, oneApi, stateOf } from "../helpers/graph-shaped-flow";

// A catalog whose data flow is served per request (more links than the stored table holds, as
// Microsoft Graph's 11,422 operations of one API) loads its flow state after an eviction. Its first
// route asks for the producers and name lookups of the few tools it ranks: reading every tool's
// stored form and making the output index from every tool's samples grew with the API's size.

/** The tools a first route ranks: operations that need identifiers, and a search. */
const RANKED = [...[24, 25, 26, 30].map((i) => oneApi(31)[i]?.tool.name ?? ""), "searchusers"];

/** What a first route asks of data flow about the tools it ranks (signal-fusion.ts, name-lookup.ts). */
function firstRouteAsks(index: DataFlowIndex<FlowTool>): unknown {
  return RANKED.map((tool) => ({ feeders: index.feeders(tool, PRODUCERS_PER_TOOL), lookups: index.nameLookups(tool) }));
}

/** A cold route's asks over the stored state of an API of `size` operations: what it answered, tool records read, tools added to an output index. */
function coldRoute(size: number): { answers: unknown; whole: unknown; recordsRead: number | undefined; indexed: number } {
  const state = stateOf(oneApi(size));
  const bytes = encodeFlowState(state);
  const added = vi.spyOn(OutputIndex.prototype, "add");
  const loaded = decodeFlowState(bytes);
  if (loaded === undefined) throw new Error("the stored state did not read back");
  const answers = firstRouteAsks(flowStateIndex(loaded));
  const indexed = added.mock.calls.length;
  added.mockRestore();
  return {
    answers,
    whole: firstRouteAsks(new DataFlowIndex(state.tools, (tool) => state.samples.get(tool.name) ?? [])),
    recordsRead: flowRecordsRead(loaded),
    indexed,
  };
}

describe("a cold first route of a tenant whose data flow is served from its stored state", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("reads only the tools it ranks and their producers, however big the API, and answers as the whole index does", () => {
    const small = coldRoute(600);
    const big = coldRoute(6_000);
    // Made from every tool's samples on the old code: 600 and 6,000 tools added.
    expect(small.indexed).toBe(0);
    expect(big.indexed).toBe(0);
    // The ranked tools and the searches and lists (24) that can start their chains; the rest need an identifier themselves.
    const bound = RANKED.length + 2 * ENTITIES.length;
    expect(big.recordsRead).toBeLessThanOrEqual(bound);
    expect(small.recordsRead).toBeLessThanOrEqual(bound);
    expect(big.answers).toEqual(big.whole);
    expect(small.answers).toEqual(small.whole);
    // The asks found producers (a bound met by answering nothing would prove nothing).
    expect(JSON.stringify(big.answers)).toContain('"from":"searchusers"');
  });

  it("reads for a later step's successors the consumers its producer's outputs name, not every tool", () => {
    const size = 3_000;
    const loaded = decodeFlowState(encodeFlowState(stateOf(oneApi(size))));
    if (loaded === undefined) throw new Error("the stored state did not read back");
    const successors = flowStateIndex(loaded).successors("searchusers");
    // The operations under /users/{user-id} (a sixth of this API) take its ids; every tool was read for its inputs before.
    expect(successors.length).toBeGreaterThan(size / 10);
    expect(flowRecordsRead(loaded)).toBeLessThanOrEqual(successors.length + 1);
  });

  it("links every tool read back from storage as the state in memory does", () => {
    const state = stateOf(oneApi(300));
    const loaded = decodeFlowState(encodeFlowState(state));
    if (loaded === undefined) throw new Error("the stored state did not read back");
    const stored = flowStateIndex(loaded);
    const whole = new DataFlowIndex(state.tools, (tool) => state.samples.get(tool.name) ?? []);
    for (const name of state.tools.keys()) {
      expect(stored.producers(name)).toEqual(whole.producers(name));
      expect(stored.nameLookups(name)).toEqual(whole.nameLookups(name));
      expect(stored.feeders(name, PRODUCERS_PER_TOOL)).toEqual(whole.feeders(name, PRODUCERS_PER_TOOL));
    }
    for (const name of [...state.tools.keys()].slice(0, 40)) expect(stored.successors(name)).toEqual(whole.successors(name));
    expect([...loaded.tools.keys()]).toEqual([...state.tools.keys()]);
    expect(new Map(loaded.samples)).toEqual(state.samples);
    expect(loaded.samples.size).toBe(state.samples.size);
  });

  it("refuses stored bytes that do not hold together", () => {
    const bytes = encodeFlowState(stateOf(oneApi(40)));
    expect(decodeFlowState(bytes.subarray(0, bytes.length - 1))).toBeUndefined();
    expect(decodeFlowState(new Uint8Array([1, 0, 0, 0, 0x7b]))).toBeUndefined();
    expect(decodeFlowState(new Uint8Array())).toBeUndefined();
  });
});
