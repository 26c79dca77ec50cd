import { BinaryHeap } from "./binary-heap";
import { graphFailure, unknownTools } from "./errors";
import type { ToolGraph } from "./tool-graph";
import { visitTransitionWeights } from "./transition-weights";

/**
 * Candidate sets: the tools handed to a model that writes one program for a whole task (ATC),
 * rather than choosing step by step. Retrieval supplies seeds for the first step (§3: the start
 * node's successors are narrowed by semantic search); the graph adds what tends to follow them.
 * Best-first by path weight, the product of eq. 6 weights along the path: weights are at most 1,
 * so a path never gains weight as it grows, and the first time a tool is reached is its best path
 * (as in Dijkstra's algorithm).
 */

/** Deepest expansion accepted; ToolNet's agents stop after 8 steps. */
export const MAX_CANDIDATE_HOPS = 8;

export interface CandidateSetOptions {
  /** How many transitions away from a seed a tool may be (0: seeds only). */
  readonly hops: number;
  /** Most tools in the set. */
  readonly maxTools: number;
  /** Most tokens the chosen tools' documentation may take together. */
  readonly tokenBudget: number;
  /** Tokens one tool's documentation takes in the prompt. */
  readonly costOf: (tool: string) => number;
}

export interface Candidate {
  readonly tool: string;
  /** 1 for a seed; otherwise the product of the weights along the best path from a seed. */
  readonly pathWeight: number;
  readonly hops: number;
  /** The tool before this one on its best path; null for a seed. */
  readonly via: string | null;
  readonly cost: number;
}

export interface CandidateSet {
  /** Chosen tools, best first. */
  readonly candidates: readonly Candidate[];
  /** Tokens they take together (≤ tokenBudget). */
  readonly tokens: number;
  /** Tools reached but left out because they did not fit in what was left of the budget. */
  readonly overBudget: readonly string[];
}

interface Frontier {
  readonly tool: string;
  readonly pathWeight: number;
  readonly hops: number;
  readonly via: string | null;
  /** Retrieval's rank for a seed; SUCCESSOR_ORDER otherwise, and then ties go by name. */
  readonly order: number;
}

const SUCCESSOR_ORDER = Number.MAX_SAFE_INTEGER;

/** Heavier paths first; among equals, seeds in retrieval order, then by name, for a stable result. */
function leavesBefore(a: Frontier, b: Frontier): boolean {
  if (a.pathWeight !== b.pathWeight) return a.pathWeight > b.pathWeight;
  if (a.order !== b.order) return a.order < b.order;
  return a.tool < b.tool;
}

/**
 * The seeds plus their strongest successors within `hops`, best-first by path weight, each added
 * only if its cost fits in what is left of `tokenBudget` (a tool that does not fit is passed over
 * and not expanded; cheaper ones after it may still fit). Stops at maxTools.
 */
export function candidateSet(graph: ToolGraph, seeds: readonly string[], options: CandidateSetOptions): CandidateSet {
  checkOptions(options);
  const unknown = seeds.filter((seed) => !graph.tools.has(seed));
  if (unknown.length > 0) throw unknownTools(unknown, "the seeds");

  const frontier = new BinaryHeap<Frontier>(leavesBefore);
  seeds.forEach((seed, order) => frontier.push({ tool: seed, pathWeight: 1, hops: 0, via: null, order }));

  const chosen: Candidate[] = [];
  const settled = new Set<string>();
  const overBudget: string[] = [];
  let tokens = 0;
  for (let next = frontier.pop(); next !== undefined && chosen.length < options.maxTools; next = frontier.pop()) {
    if (settled.has(next.tool)) continue;
    settled.add(next.tool); // its best path is this one; a later, lighter path changes nothing
    const cost = options.costOf(next.tool);
    if (!Number.isFinite(cost) || cost < 0) {
      throw graphFailure({
        code: "invalid_options",
        message: `costOf(${next.tool}) must be a finite number ≥ 0; got ${cost}.`,
        names: [next.tool],
      });
    }
    if (tokens + cost > options.tokenBudget) {
      overBudget.push(next.tool);
      continue;
    }
    tokens += cost;
    chosen.push({ tool: next.tool, pathWeight: next.pathWeight, hops: next.hops, via: next.via, cost });
    if (next.hops >= options.hops) continue;
    const source = graph.tools.get(next.tool);
    if (source === undefined) continue;
    const parent = next;
    visitTransitionWeights(graph, source, (target, weight) => {
      if (target === graph.end || settled.has(target.id) || weight <= 0) return;
      frontier.push({
        tool: target.id,
        pathWeight: parent.pathWeight * weight,
        hops: parent.hops + 1,
        via: parent.tool,
        order: SUCCESSOR_ORDER,
      });
    });
  }
  return { candidates: chosen, tokens, overBudget };
}

function checkOptions(options: CandidateSetOptions): void {
  const problems: string[] = [];
  if (!Number.isInteger(options.hops) || options.hops < 0 || options.hops > MAX_CANDIDATE_HOPS) {
    problems.push(`hops must be an integer in [0, ${MAX_CANDIDATE_HOPS}]`);
  }
  if (!Number.isInteger(options.maxTools) || options.maxTools < 1) problems.push("maxTools must be an integer ≥ 1");
  if (!Number.isFinite(options.tokenBudget) || options.tokenBudget < 0) problems.push("tokenBudget must be a finite number ≥ 0");
  if (problems.length > 0) {
    throw graphFailure({ code: "invalid_options", message: `candidateSet: ${problems.join("; ")}.` });
  }
}
