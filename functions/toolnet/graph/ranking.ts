import { BinaryHeap } from "./binary-heap";
import { graphFailure } from "./errors";
import { requireSource, type GraphNode, type ToolGraph } from "./tool-graph";
import { visitTransitionWeights } from "./transition-weights";

/**
 * Ranking of successors: the tools T_s an agent may choose from after its last tool (eq. 4),
 * sorted by transition weight, each with its weight as the paper formats it for the model.
 */

/**
 * Multiplier from a weight w ∈ [0, 1] to the integer shown to the model. §4.2.3 compares
 * showing weights /100, /10, as integers, and ×10; "Integer" (decimals removed) beat "No
 * weight", which is only possible if the base weights are well above 1, i.e. percentages (a
 * probability with its decimals removed is 0 almost everywhere). The best format, ×10, is then
 * w × 100 × 10: per mille, an integer from 0 to 1000.
 */
export const PROMPT_WEIGHT_SCALE = 1000;

/** A successor with its weight for the prompt (integer, per mille) and the exact w of eq. 6. */
export interface RankedTool {
  readonly tool: string;
  readonly weight: number;
  readonly exact: number;
}

export interface SuccessorOptions {
  /** Include the end node (the model's "finish") among the successors; default false. */
  readonly includeEnd?: boolean;
}

/**
 * w × 1000 rounded half up to an integer. The 1e-9 allowance makes binary noise round like the
 * decimal it stands for (0.5005 × 1000 is 500.49999… in floating point, and shows as 501).
 */
export function promptWeight(exact: number): number {
  return Math.floor(exact * PROMPT_WEIGHT_SCALE + 0.5 + 1e-9);
}

interface Scored {
  readonly tool: string;
  readonly exact: number;
}

/** Heavier first; equal weights by name, so the order never depends on insertion history. */
function ranksBefore(a: Scored, b: Scored): boolean {
  return a.exact > b.exact || (a.exact === b.exact && a.tool < b.tool);
}

/** Start reaches every tool, so its ranking is O(tools); it is kept until the graph changes. */
const START_CACHE_SIZE = 32;
const startCache = new WeakMap<ToolGraph, { version: number; includeEnd: boolean; ranked: RankedTool[] }>();

/**
 * The k heaviest out-neighbours of `from` (a tool or START), best first, in O(d log k) for d
 * out-neighbours: a tool's observed successors plus itself and end. For START, d is every tool;
 * its best 32 are cached until the graph next changes.
 */
export function successors(graph: ToolGraph, from: string, k: number, options: SuccessorOptions = {}): RankedTool[] {
  if (!Number.isInteger(k) || k < 0) {
    throw graphFailure({ code: "invalid_options", message: `k must be a non-negative integer; got ${k}.` });
  }
  const source = requireSource(graph, from, "successors()");
  const includeEnd = options.includeEnd === true;
  if (source !== graph.start || k > START_CACHE_SIZE) return rank(graph, source, k, includeEnd);
  let cached = startCache.get(graph);
  if (cached === undefined || cached.version !== graph.version || cached.includeEnd !== includeEnd) {
    cached = { version: graph.version, includeEnd, ranked: rank(graph, source, START_CACHE_SIZE, includeEnd) };
    startCache.set(graph, cached);
  }
  return cached.ranked.slice(0, k);
}

function rank(graph: ToolGraph, source: GraphNode, k: number, includeEnd: boolean): RankedTool[] {
  if (k === 0) return [];
  // Bounded selection: the heap's top is the worst of the best k so far, so most candidates
  // are turned away by one comparison and never allocated.
  const kept = new BinaryHeap<Scored>((a, b) => ranksBefore(b, a));
  visitTransitionWeights(graph, source, (target, exact) => {
    if (target === graph.end && !includeEnd) return;
    if (kept.size < k) {
      kept.push({ tool: target.id, exact });
      return;
    }
    const worst = kept.peek();
    if (worst === undefined) return;
    if (exact > worst.exact || (exact === worst.exact && target.id < worst.tool)) {
      kept.replaceTop({ tool: target.id, exact });
    }
  });
  const ranked: RankedTool[] = [];
  for (let item = kept.pop(); item !== undefined; item = kept.pop()) {
    ranked.push({ tool: item.tool, exact: item.exact, weight: promptWeight(item.exact) });
  }
  return ranked.reverse();
}

/**
 * Eq. 4 as a routing answer shows it: `successors`, except that the previous tool's structural
 * self-loop, when no repeat was ever observed, goes after every other successor. A tool that was
 * never seen to repeat is not its own best next step, yet with few observations its self-loop's
 * share of eq. 6 can outweigh the one transition that was observed.
 */
export function graphStepSuccessors(graph: ToolGraph, from: string, k: number, options: SuccessorOptions = {}): RankedTool[] {
  const source = requireSource(graph, from, "graphStepSuccessors()");
  const repeated = (source.out.get(from)?.count ?? 0) > 0;
  if (source === graph.start || repeated) return successors(graph, from, k, options);
  const ranked = successors(graph, from, k + 1, options);
  const self = ranked.find((r) => r.tool === from);
  const others = ranked.filter((r) => r.tool !== from);
  return (self === undefined ? others : [...others, self]).slice(0, k);
}

/** An observed successor: its eq. 6 weight and how often the transition was seen. */
export interface LearnedSuccessor {
  readonly tool: string;
  readonly exact: number;
  readonly observed: number;
}

/**
 * The successors of `from` that were observed after it (count > 0), heaviest first by eq. 6,
 * without end; the structural edges nobody took (self-loop, end) are left to the caller.
 */
export function learnedSuccessors(graph: ToolGraph, from: string): LearnedSuccessor[] {
  const source = requireSource(graph, from, "learnedSuccessors()");
  const out: LearnedSuccessor[] = [];
  visitTransitionWeights(graph, source, (target, exact) => {
    if (target === graph.end) return;
    const observed = source.out.get(target.id)?.count ?? 0;
    if (observed > 0) out.push({ tool: target.id, exact, observed });
  });
  return out.sort((a, b) => b.exact - a.exact || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
}
