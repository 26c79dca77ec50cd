import { effectiveSchema } from "../probing";
import type { SampleValue } from "../probing/protocol";
import type { ToolParameter } from "../tools/definition";
import type { FlowTool } from "./data-flow";
import { isFillable } from "./flow-rules";

/**
 * What a per-request data-flow index is made of — every tool's compact form (FlowTool) and the
 * output samples it can offer (FlowSamples: per tool, shared between tools) — stored, so that the
 * index of a catalog past the table's bounds is made again after an eviction from these alone,
 * without SQLite reading and parsing every definition (Microsoft Graph's are 266 MB of JSON).
 * Equal samples are stored once; an input's schema only as far as data flow reads it (`flowSchema`).
 */

/** Bumped when the encoding or what FlowSamples and FlowTool keep changes: older stored states are made again. */
export const FLOW_SAMPLES_FORMAT = "flow-samples/2";

export interface FlowState {
  tools: Map<string, FlowTool>;
  samples: Map<string, SampleValue[]>;
}

/**
 * An input data flow reads by its name alone (not fillable, flow-rules.ts `isFillable`: optional, or a
 * header), as [name, in, required]: a cold route of Microsoft Graph parses every tool's stored form,
 * and its operations' many optional query inputs (`$select`, `$filter`, …) as objects with a
 * schema were most of those bytes.
 */
type NamedOnly = [string, ToolParameter["in"], boolean];

type EncodedTool = Omit<FlowTool, "parameters"> & { parameters: (ToolParameter | NamedOnly)[] };

interface Encoded {
  tools: EncodedTool[];
  /** Distinct samples: [path, value]. */
  samples: [string, SampleValue["value"]][];
  /** Per tool: [name, sample index × n], in the tools' order. */
  offered: [string, ...number[]][];
}

const READ_KEYS = ["type", "default", "example", "const"] as const;

/**
 * What data flow reads of an input's schema, in a form that reads the same: its own `type` (a
 * by-name lookup takes text inputs only), and the type, default, example and constant of the
 * schema its variants make (instance discovery's `effectiveSchema`, read for the value's type).
 * A request body's schema of thousands of nodes becomes a few bytes.
 */
export function flowSchema(schema: unknown): ToolParameter["schema"] {
  const own = typeof schema === "object" && schema !== null && !Array.isArray(schema) ? (schema as Record<string, unknown>).type : undefined;
  const effective = effectiveSchema(schema);
  const read: Record<string, unknown> = {};
  for (const key of READ_KEYS) {
    const value = effective[key];
    // Instance discovery reads a default, example or constant only for its type when it is a plain value.
    if (value !== undefined && (key === "type" || ["string", "number", "boolean"].includes(typeof value))) read[key] = value;
  }
  // The variant's keys override the own type, as effectiveSchema merges them.
  return { ...(own === undefined ? {} : { type: own }), anyOf: [read] } as ToolParameter["schema"];
}

function compactTool(tool: FlowTool): EncodedTool {
  return {
    ...tool,
    parameters: tool.parameters.map((p): ToolParameter | NamedOnly => (isFillable(p) ? { ...p, schema: flowSchema(p.schema) } : [p.name, p.in, p.required])),
  };
}

/** A stored tool as data flow reads it: an input stored by name again with the empty schema `flowTool` gives it. */
function readTool(tool: EncodedTool): FlowTool {
  if (typeof tool.name !== "string" || !Array.isArray(tool.parameters)) throw new Error("flow state: bad tool");
  const parameters = tool.parameters.map((p): ToolParameter => (Array.isArray(p) ? { name: p[0], in: p[1], required: p[2], schema: {} } : p));
  return { ...tool, parameters };
}

export function encodeFlowState(state: FlowState): Uint8Array {
  const ids = new Map<SampleValue, number>();
  const encoded: Encoded = { tools: [...state.tools.values()].map(compactTool), samples: [], offered: [] };
  for (const [tool, list] of state.samples) {
    const row: [string, ...number[]] = [tool];
    for (const sample of list) {
      let id = ids.get(sample);
      if (id === undefined) {
        ids.set(sample, (id = encoded.samples.length));
        encoded.samples.push([sample.path, sample.value]);
      }
      row.push(id);
    }
    encoded.offered.push(row);
  }
  return new TextEncoder().encode(JSON.stringify(encoded));
}

/** The state stored by `encodeFlowState` (equal samples shared again); undefined when the bytes are not one. */
export function decodeFlowState(bytes: Uint8Array): FlowState | undefined {
  try {
    const encoded = JSON.parse(new TextDecoder().decode(bytes)) as Encoded;
    const shared = encoded.samples.map(([path, value]): SampleValue => {
      if (typeof path !== "string" || !["string", "number", "boolean"].includes(typeof value)) throw new Error("flow state: bad sample");
      return { path, value };
    });
    const samples = new Map<string, SampleValue[]>();
    for (const [tool, ...ids] of encoded.offered) {
      samples.set(
        tool,
        ids.map((id) => {
          const sample = shared[id];
          if (sample === undefined) throw new Error("flow state: bad reference");
          return sample;
        }),
      );
    }
    const tools = new Map<string, FlowTool>();
    for (const stored of encoded.tools) {
      const tool = readTool(stored);
      tools.set(tool.name, tool);
    }
    return { tools, samples };
  } catch {
    return undefined;
  }
}
