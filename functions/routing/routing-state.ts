import type { StartingTool } from "../toolnet/route-fallback";
import type { ToolGraph } from "../toolnet/graph";
import type { Ranked, ToolDoc, ToolIndex } from "../toolnet/retrieval";
import type { FlowTool } from "../toolnet/data-flow";
import type { DataFlowLookup } from "../toolnet/data-flow-links";
import type { TaskMemory } from "../toolnet/task-memory";
import type { ApiFamilies } from "../toolnet/api-siblings";
import type { SampleValue } from "../probing/protocol";
import type { ToolDefinition } from "../tools/definition";
import type { TenantEvents } from "../storage/tenant-events";
import type { TenantSettings } from "../storage/tenant-settings";
import type { LoadedGraph, LoadReport } from "../storage/routing-snapshots";
import type { LazyDefinitions } from "./lazy-definitions";
import type { ParametersOf, SaidNumberTools } from "./said-number-tools";
import type { RelevanceMemo } from "./relevance-memo";
import type { ApiSiblingLookup } from "./api-sibling-lookup";

/**
 * The shape of a tenant's routing state in memory (LoadedRouting, loaded-routing.ts), what it
 * reads from the tenant's other stores, and the routing hints it reads of the current protocols.
 */

/** What use has taught about a tool: queries it answered, fields it returned (current protocol). */
export interface RoutingHints {
  queries: string[];
  outputs: SampleValue[];
}

/** What the routing state reads from the tenant's other stores. */
export interface StateSources {
  /** The registry's tools: names, stored definitions (one, or all one at a time), and each tool's server and summary. */
  catalog: {
    toolNames(): string[];
    /** How many tools are registered (a count, no name read). */
    toolCount(): number;
    /** Characters of every stored definition together (a sum kept by the store, no definition read). */
    definitionChars(): number;
    definitionText(name: string): string | undefined;
    eachDefinitionText(): Iterable<string>;
    /** Stored definitions after a name, in name order, as many as make `maxChars` of JSON (at least one): a preparation's piece. */
    definitionTextsAfter(after: string, maxChars: number): { name: string; text: string }[];
    /** Every tool's starting form (the starting-tools fallback), stored with the tools. */
    startingList(): StartingTool[];
    apiRows(): Pick<ToolDefinition, "name" | "serverUrl" | "summary">[];
    summaries(names: readonly string[]): Map<string, string>;
    /** A tool's same-API siblings when its API has 2 to `max` tools, read per tool (a route reads those of the tools it ranks). */
    apiSiblingsOf(name: string, max: number): readonly string[];
    anyApiSiblings(max: number): boolean;
    /** The tools registered with a server URL, in name order, at most `limit` (a change re-indexes the APIs it touches). */
    toolsAtServer(serverUrl: string, limit: number): readonly string[];
    flowRows(): FlowTool[];
    parametersOf: ParametersOf;
  };
  /** Routing hints (JSON) of current protocols made for the tools' current definitions. */
  routingHints: () => Map<string, string>;
  settings: TenantSettings;
  events: TenantEvents;
  /** A preparation of the routing state was noted as due (the tenant object arms its alarm). */
  preparationNoted?: () => void;
}

/** A task's relevance: a later step's ranking, a first step's (with API evidence) and whether the task was embedded. */
export interface TaskRelevance {
  ranked: Ranked[];
  firstStep: Ranked[];
  embedded: boolean;
}

/** The state one object lifetime works on; parts load on first use. */
export interface Loaded {
  graph: ToolGraph;
  /** The graph as loaded: from stored edges (trajectories attached on demand) or rebuilt. */
  stored: LoadedGraph;
  /** How this state was loaded (for tests and benchmarks). */
  report: LoadReport;
  /** Loaded on first use (a graph step or feedback never needs it). */
  readonly index: ToolIndex;
  /** The index if it has been loaded, else undefined (changes are then noted for its load). */
  readonly loadedIndex: ToolIndex | undefined;
  /** Parsed on demand, the most recently used kept: an answer parses the tools it shows; computing data flow streams them all. */
  defs: LazyDefinitions;
  /** Every tool's data-flow successors and producers: read back or computed on first use, once per catalog change. */
  readonly flow: DataFlowLookup;
  /** The links if they are in memory (dropped when tools or protocols change), else undefined. */
  loadedFlow: DataFlowLookup | undefined;
  /** The links before the last catalog change, until new ones are made (last-good-flow.ts): a big catalog's routes use them meanwhile. */
  staleFlow: DataFlowLookup | undefined;
  /** A preparation reads the catalog in pieces now (definition-pass.ts): a big catalog's routes do not compute data flow themselves meanwhile. */
  preparing: boolean;
  /** Index documents a preparation made in pieces, read by the index's load instead of parsing the definitions again. */
  preparedDocuments: ReadonlyMap<string, ToolDoc> | undefined;
  /** Every tool's compact form, when data flow is served per request and loaded (dropped with it). */
  flowTools: ReadonlyMap<string, FlowTool> | undefined;
  /** Built from the stored tasks on first use. */
  readonly memory: TaskMemory;
  readonly loadedMemory: TaskMemory | undefined;
  hints: Map<string, RoutingHints>;
  /** Other operations of each tool's API (small APIs only), read from light rows; rebuilt when tools change. */
  families: ApiFamilies | undefined;
  /** Same-API siblings read tool by tool while `families` is not loaded (api-sibling-lookup.ts). */
  apis: ApiSiblingLookup;
  /** Recent task-relevance rankings by task text, depth and embeddings model, each for the index version it was computed against. */
  relevance: RelevanceMemo<TaskRelevance>;
  /** Which tools need a number the task must say, as asked so far (forgotten when they change). */
  saidNumbers: SaidNumberTools;
}

/** A protocol's routing hints from their stored JSON; what is not of their shape is left out. */
export function parseHints(json: string): RoutingHints {
  try {
    const value = JSON.parse(json) as Partial<RoutingHints>;
    const queries = Array.isArray(value.queries) ? value.queries.filter((q): q is string => typeof q === "string") : [];
    const outputs = Array.isArray(value.outputs)
      ? value.outputs.filter(
          (o): o is SampleValue =>
            typeof o === "object" && o !== null && typeof o.path === "string" && ["string", "number", "boolean"].includes(typeof o.value),
        )
      : [];
    return { queries, outputs };
  } catch {
    return { queries: [], outputs: [] };
  }
}
