import type { SampleValue } from "../probing/protocol";

/**
 * The output samples a per-request data-flow index offers (FlowSamples: per tool, those data flow
 * can ever offer, shared between tools), stored so that an index for a catalog past the table's
 * bounds is made again after an eviction from these alone, without streaming and parsing every
 * definition (Microsoft Graph's are 266 MB of JSON). Equal samples are stored once.
 */

/** Bumped when the encoding or what FlowSamples keeps changes: older stored samples are made again. */
export const FLOW_SAMPLES_FORMAT = "flow-samples/1";

interface Encoded {
  /** Distinct samples: [path, value]. */
  samples: [string, SampleValue["value"]][];
  /** Per tool: [name, sample index × n], in the tools' order. */
  tools: [string, ...number[]][];
}

export function encodeFlowSamples(samples: ReadonlyMap<string, readonly SampleValue[]>): Uint8Array {
  const ids = new Map<SampleValue, number>();
  const encoded: Encoded = { samples: [], tools: [] };
  for (const [tool, list] of samples) {
    const row: [string, ...number[]] = [tool];
    for (const sample of list) {
      let id = ids.get(sample);
      if (id === undefined) {
        ids.set(sample, (id = encoded.samples.length));
        encoded.samples.push([sample.path, sample.value]);
      }
      row.push(id);
    }
    encoded.tools.push(row);
  }
  return new TextEncoder().encode(JSON.stringify(encoded));
}

/** The samples stored by `encodeFlowSamples` (equal ones shared again); undefined when the bytes are not such samples. */
export function decodeFlowSamples(bytes: Uint8Array): Map<string, SampleValue[]> | undefined {
  try {
    const encoded = JSON.parse(new TextDecoder().decode(bytes)) as Encoded;
    const shared = encoded.samples.map(([path, value]): SampleValue => {
      if (typeof path !== "string" || !["string", "number", "boolean"].includes(typeof value)) throw new Error("flow samples: bad sample");
      return { path, value };
    });
    const out = new Map<string, SampleValue[]>();
    for (const [tool, ...ids] of encoded.tools) {
      out.set(
        tool,
        ids.map((id) => {
          const sample = shared[id];
          if (sample === undefined) throw new Error("flow samples: bad reference");
          return sample;
        }),
      );
    }
    return out;
  } catch {
    return undefined;
  }
}
