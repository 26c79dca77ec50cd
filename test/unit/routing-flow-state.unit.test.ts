import { beforeAll, describe, expect, it } from "vitest";
import { effectiveSchema } from "../../functions/probing";
import type { SampleValue } from "../../functions/probing/protocol";
import { DataFlowIndex, FlowSamples, flowTool, outputFields, type FlowTool } from "../../functions/toolnet/data-flow";
import { flowStateIndex } from "../../functions/toolnet/data-flow-state";
import { decodeFlowState, encodeFlowState, flowSchema } from "../../functions/toolnet/flow-samples-codec";
import type { ToolDefinition } from "../../functions/tools/definition";
import { tmdbTools } from "../helpers/tmdb-routing";

let tmdb: Map<string, ToolDefinition>;

beforeAll(async () => {
  tmdb = await tmdbTools();
});

/** The per-request index as routing makes it from the definitions (loaded-data-flow.ts), and what it stores of it. */
function streamed(defs: Map<string, ToolDefinition>): { tools: Map<string, FlowTool>; samples: Map<string, SampleValue[]> } {
  const tools = new Map([...defs.values()].map((def) => [def.name, flowTool(def)]));
  const offerable = new FlowSamples(tools.values());
  const samples = new Map<string, SampleValue[]>();
  for (const def of defs.values()) {
    const kept = offerable.offerable(outputFields(def));
    if (kept.length > 0) samples.set(def.name, kept);
  }
  return { tools, samples };
}

describe("the stored state of a per-request data-flow index", () => {
  it("makes an index that links every TMDB tool as the definitions do, from a few bytes per tool", () => {
    const made = streamed(tmdb);
    const bytes = encodeFlowState(made);
    const read = decodeFlowState(bytes);
    expect(read).toBeDefined();
    const fromDefinitions = new DataFlowIndex(tmdb);
    // As a cold route reads it: a tool at a time, with the stored output index, start ranks and consumer indexes.
    const fromStored = flowStateIndex(read as NonNullable<typeof read>);
    for (const name of tmdb.keys()) {
      expect(fromStored.successors(name)).toEqual(fromDefinitions.successors(name));
      expect(fromStored.producers(name)).toEqual(fromDefinitions.producers(name));
      expect(fromStored.nameLookups(name)).toEqual(fromDefinitions.nameLookups(name));
      expect(fromStored.feeders(name, 2)).toEqual(fromDefinitions.feeders(name, 2));
    }
    expect(bytes.byteLength / tmdb.size).toBeLessThan(1_000);
    expect(decodeFlowState(new TextEncoder().encode('{"tools":[],"samples":[["a",1]],"offered":[["x",5]]}'))).toBeUndefined();
  });

  it("keeps of an input's schema what data flow reads: its own type, and the type, default, example and constant of its variants", () => {
    const body = { type: "object", properties: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`field${i}`, { type: "string" }])) };
    const schemas: unknown[] = [
      body,
      { anyOf: [{ type: "null" }, { type: "integer", example: 5 }] },
      { type: "string", oneOf: [{ const: "a" }, { const: "b" }] },
      { allOf: [{ default: 3 }, { description: "a count" }] },
      { example: { nested: true } },
      {},
      { type: ["string", "null"] },
    ];
    for (const schema of schemas) {
      const compact = flowSchema(schema);
      expect(compact.type).toEqual((schema as { type?: unknown }).type);
      const read = (s: Record<string, unknown>) =>
        Object.fromEntries(
          ["type", "default", "example", "const"].map((k) => [k, ["object"].includes(typeof s[k]) && !Array.isArray(s[k]) ? undefined : s[k]]),
        );
      expect(read(effectiveSchema(compact))).toEqual(read(effectiveSchema(schema)));
    }
    expect(JSON.stringify(flowSchema(body)).length).toBeLessThan(60);
  });
});
