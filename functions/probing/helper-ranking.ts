import type { ToolDefinition } from "../tools/definition";
import { dataFlowCandidates, nameWords, type ProbedOutput } from "./instance-discovery";
import type { ProbedProtocol } from "./protocol";

/** What a probed tool offers others as data flow. */
export function outputOf(definition: ToolDefinition, protocol: ProbedProtocol): ProbedOutput {
  return { tool: protocol.name, path: definition.path, inputs: definition.parameters.map((p) => p.name), samples: protocol.samples };
}

/** Whether two tools talk about the same things: shared words of name, path and description. */
function lexicalAffinity(a: ToolDefinition, b: ToolDefinition): number {
  const words = (d: ToolDefinition) => new Set(nameWords(`${d.name} ${d.path} ${d.summary ?? ""} ${d.description.slice(0, 300)}`).filter((w) => w.length > 2));
  const left = words(a);
  const right = words(b);
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const w of left) if (right.has(w)) shared++;
  return shared / Math.sqrt(left.size * right.size);
}

export interface RankedHelper {
  name: string;
  /** Best data-flow score over the target's parameters (optional ones count half). */
  flow: number;
  affinity: number;
}

/**
 * The deterministic pre-selection of helpers: probed tools ranked by how well their outputs fill
 * the target's parameters, then by shared vocabulary. It spares the model a long list (I_s gets
 * the shortlist only) and usually puts the right helper first.
 */
export function rankHelpers(target: ToolDefinition, probed: readonly { definition: ToolDefinition; protocol: ProbedProtocol }[]): RankedHelper[] {
  return probed
    .filter((p) => p.definition.name !== target.name)
    .map((p, order) => {
      const output = outputOf(p.definition, p.protocol);
      let flow = 0;
      for (const param of target.parameters) {
        const best = dataFlowCandidates(target, param, [output])[0];
        if (best !== undefined) flow = Math.max(flow, best.score * (param.required ? 1 : 0.5));
      }
      return { name: p.definition.name, flow, affinity: lexicalAffinity(target, p.definition), order };
    })
    .sort((a, b) => b.flow - a.flow || b.affinity - a.affinity || a.order - b.order)
    .map(({ name, flow, affinity }) => ({ name, flow, affinity }));
}
