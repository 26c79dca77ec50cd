import { type DataFlowIndex, FlowSamples, flowTool, outputFields, type FlowTool } from "../toolnet/data-flow";
import { DataFlowLinks, finished, MAX_TABLE_OFFERS, MAX_TABLED_LINKS, type DataFlowLookup } from "../toolnet/data-flow-links";
import type { FlowState } from "../toolnet/flow-samples-codec";
import { flowStateIndex } from "../toolnet/data-flow-state";
import type { SampleValue } from "../probing/protocol";
import type { RoutingSnapshots } from "../storage/routing-snapshots";
import type { Loaded, StateSources } from "./routing-state";

/**
 * The routing state's data flow (loaded-routing.ts), made on first use: read back, computed from
 * every definition into a table, or served per request by an index made from compact forms.
 */

/** What data flow's loading reads of the registry: every tool's compact form. */
type FlowRows = Pick<StateSources["catalog"], "flowRows">;

/** One piece of the links' computation in a preparation: samples offered to candidate consumers (≈ 10 µs each at 1,200 tools). */
export const FLOW_PIECE_OFFERS = 5_000;
/** …or tools linked and targets' producers listed, whichever comes first. */
export const FLOW_PIECE_ASKS = 64;

/**
 * The stored links when nothing changed since they were computed, else computed from every
 * definition (outputs include probed samples) and stored for the next load. A catalog with
 * more links than the table holds is served per request by the index, as before the table;
 * what that index is made of is stored instead, so it is made again without the definitions.
 * `prepared`: the compact forms and samples a preparation read in pieces (definition-pass.ts).
 */
export function loadDataFlow(state: Loaded, store: RoutingSnapshots, catalog: FlowRows, prepared?: FlowState): DataFlowLookup {
  return finished(dataFlowInPieces(state, store, catalog, prepared));
}

/**
 * `loadDataFlow` a piece at a time: yields after each piece of the links' computation
 * (FLOW_PIECE_OFFERS, FLOW_PIECE_ASKS), so that the preparation hands the object back between
 * pieces; run in one go, the pauses cost nothing.
 */
export function* dataFlowInPieces(state: Loaded, store: RoutingSnapshots, catalog: FlowRows, prepared?: FlowState): Generator<void, DataFlowLookup> {
  const { defs, report } = state;
  const ready = storedDataFlow(state, store);
  if (ready !== undefined) return ready;
  const stored = store.loadDataFlow(defs.size);
  // Read in pieces by the preparation (definition-pass.ts) when it made them, else streamed now.
  const { index, flowState } = flowIndex(state, prepared, catalog);
  // Past the bound once: noted, so later loads of the same catalog do not look again.
  const links =
    stored === "too many"
      ? undefined
      : yield* DataFlowLinks.computeInPieces(index, defs.keys(), {
          maxLinks: MAX_TABLED_LINKS,
          exhausted: () => index.offers > MAX_TABLE_OFFERS,
          pieceOver: pieceCounter(index),
        });
  if (links === undefined) {
    state.flowTools = flowState.tools;
    if (stored === undefined) store.saveDataFlow("too many", defs.size);
    store.saveFlowState(flowState, defs.size);
    report.dataFlow = "per request";
    return index;
  }
  store.saveDataFlow(links, defs.size);
  report.dataFlow = "computed";
  return links;
}

/**
 * The data flow storage holds for this catalog, read without a definition: the stored links, or
 * the stored state an index serves per request from. Undefined when a change dropped them (or an
 * upgrade left them in an older format): then only streaming every definition makes them.
 */
export function storedDataFlow(state: Loaded, store: RoutingSnapshots): DataFlowLookup | undefined {
  const { defs, report } = state;
  const stored = store.loadDataFlow(defs.size);
  if (stored === undefined) return undefined;
  if (stored !== "too many") {
    report.dataFlow = "stored";
    return stored;
  }
  const storedState = store.loadFlowState(defs.size);
  if (storedState === undefined) return undefined;
  state.flowTools = storedState.tools;
  report.dataFlow = "per request";
  return flowStateIndex(storedState);
}

/** True once a piece's work is done (counted, not timed: deployed, the clock stands still while code computes). */
function pieceCounter(index: DataFlowIndex<FlowTool>): () => boolean {
  let offersAtStart = index.offers;
  let asks = 0;
  return () => {
    asks += 1;
    if (asks < FLOW_PIECE_ASKS && index.offers - offersAtStart < FLOW_PIECE_OFFERS) return false;
    asks = 0;
    offersAtStart = index.offers;
    return true;
  };
}

/**
 * The data-flow index over every tool's compact form (name, path, server and parameters, read
 * by SQLite from the stored JSON) and per tool only the output samples data flow can offer
 * (FlowSamples), the definitions streamed once, one at a time, for them; or both as `stored`.
 * No definition is kept, and none is parsed again to link a tool. The output index is made from
 * the offerable samples alone: it is read only for fields named like a required input, and
 * identifiers, which are exactly the ones FlowSamples keeps. A stored state comes with its output
 * index and start ranks (flow-samples-codec.ts), so a cold route reads only the tools it asks about;
 * one made now keeps the index it was given, for its save.
 */
function flowIndex(state: Loaded, prepared: FlowState | undefined, catalog: FlowRows): { index: DataFlowIndex<FlowTool>; flowState: FlowState } {
  const flowState = prepared ?? streamedFlowState(state, catalog);
  return { index: flowStateIndex(flowState), flowState };
}

function streamedFlowState(state: Loaded, catalog: FlowRows): FlowState {
  const { defs, hints } = state;
  const tools = new Map<string, FlowTool>();
  for (const row of catalog.flowRows()) if (defs.has(row.name)) tools.set(row.name, flowTool(row));
  const offerable = new FlowSamples(tools.values());
  const samples = new Map<string, SampleValue[]>();
  for (const def of defs.values()) {
    const kept = offerable.offerable(outputFields(def, hints.get(def.name)?.outputs));
    if (kept.length > 0) samples.set(def.name, kept);
  }
  return { tools, samples };
}
