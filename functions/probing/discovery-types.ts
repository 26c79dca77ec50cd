import type { SampleValue } from "./protocol";

/** The shapes instance discovery (instance-discovery.ts) takes and returns. */

/** Where a proposed value came from, strongest first. */
export type ValueSource = "const" | "enum" | "default" | "example" | "description" | "data_flow" | "format" | "name" | "placeholder";

/** A probed tool's output, as data-flow input for other tools. */
export interface ProbedOutput {
  tool: string;
  /** Path template (`/search/person`) or other words naming what the tool returns. */
  path?: string;
  /** Parameter names of the producing tool: entities it takes as input are not what it returns. */
  inputs?: readonly string[];
  samples: readonly SampleValue[];
}

/** A value proposed for one parameter, with a confidence in [0, 1]. */
export interface ValueCandidate {
  value: unknown;
  source: ValueSource;
  score: number;
  /** For data flow: which probed tool returned the value, and where in its response. */
  from?: { tool: string; path: string };
}

export interface DataFlowBinding {
  parameter: string;
  tool: string;
  /** Concrete path in the producing tool's response, e.g. `results[0].id`. */
  path: string;
  value: unknown;
}

/** One proposed argument set; `score` is its weakest required value's confidence. */
export interface ArgumentSet {
  arguments: Record<string, unknown>;
  score: number;
  sources: Record<string, ValueSource>;
  dataFlow: DataFlowBinding[];
}

export interface FillContext {
  /** Outputs of tools already probed; empty when a tool is probed alone. */
  outputs?: readonly ProbedOutput[];
  /** How many argument sets to return. Default 3. */
  maxCandidates?: number;
}
