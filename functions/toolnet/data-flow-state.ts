import { DataFlowIndex } from "./data-flow";
import type { FlowTool } from "./flow-rules";
import type { FlowState } from "./flow-samples-codec";
import { OutputIndex } from "./output-index";

/**
 * The per-request data-flow index of a catalog past the links table's bounds, over its flow state:
 * made in memory (its output index made here once, and kept on the state for its save), or read
 * back from storage with its output index, start ranks and consumer indexes (flow-samples-codec.ts), so that the
 * index reads a tool only when a route asks about it or one of its producers.
 */
export function flowStateIndex(state: FlowState): DataFlowIndex<FlowTool> {
  const { tools, samples } = state;
  state.outputs ??= OutputIndex.over(tools, samples);
  return new DataFlowIndex(tools, (tool) => samples.get(tool.name) ?? [], state.outputs, state.lookups);
}
