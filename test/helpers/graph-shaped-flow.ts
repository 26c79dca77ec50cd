import type { SampleValue } from "../../functions/probing/protocol";
import { FlowSamples, type FlowTool, flowTool } from "../../functions/toolnet/data-flow";
import type { FlowState } from "../../functions/toolnet/flow-samples-codec";
import type { ToolParameter } from "../../functions/tools/definition";

/**
 * A data-flow state shaped like Microsoft Graph's, as a catalog served per request stores it: one
 * API whose operations nearly all need identifiers and return ids (and a creator's user id) that
 * thousands of others take; per entity one search by name and one list start the chains. For
 * tests and the cold-route bench's `--graph-flow`.
 */

export const ENTITIES = ["user", "group", "calendar", "event", "message", "drive", "site", "team", "channel", "contact", "plan", "task"];
const SERVER = "https://graph.example.com/v1.0";
const ODATA = ["$top", "$filter", "$select"].map((name): ToolParameter => ({ name, in: "query", required: false, schema: { type: "string" } }));

const text = (name: string): ToolParameter => ({ name, in: "query", required: true, schema: { type: "string" } });
const id = (entity: string): ToolParameter => ({ name: `${entity}-id`, in: "path", required: true, schema: { type: "string" } });

/** One API of `size` operations, Graph-shaped: per entity a search by name and a list, the rest nested `/{a}s/{a-id}/{b}s/{b-id}/…` operations. */
export function oneApi(size: number): { tool: FlowTool; outputs: SampleValue[] }[] {
  const sample = (path: string, value: string | number = "AAMkAGI2"): SampleValue => ({ path, value });
  const made = ENTITIES.flatMap((e) => [
    {
      tool: flowTool({ name: `search${e}s`, path: `/${e}s/search`, serverUrl: SERVER, parameters: [text("query"), ...ODATA] }),
      outputs: [sample("value[0].id"), sample("value[0].displayName", "Adele")],
    },
    {
      tool: flowTool({ name: `list${e}s`, path: `/${e}s`, serverUrl: SERVER, parameters: ODATA }),
      outputs: [sample("value[0].id"), sample("@odata.count", 3)],
    },
  ]);
  for (let i = made.length; i < size; i += 1) {
    const [a, b] = [ENTITIES[i % ENTITIES.length] ?? "", ENTITIES[(i * 5 + 1) % ENTITIES.length] ?? ""];
    made.push({
      tool: flowTool({
        name: `${a}s${b}sOperation${i}`,
        path: `/${a}s/{${a}-id}/${b}s/{${b}-id}/operation${i}`,
        serverUrl: SERVER,
        parameters: [id(a), id(b), ...ODATA],
      }),
      outputs: [sample("value[0].id"), sample(`value[0].${b}Id`), sample("value[0].createdBy.user.id"), sample("value[0].displayName", "Adele")],
    });
  }
  return made;
}

/** The state a preparation stores (loaded-data-flow.ts): every tool's compact form and its offerable samples. */
export function stateOf(api: ReturnType<typeof oneApi>): FlowState {
  const tools = new Map(api.map(({ tool }) => [tool.name, tool]));
  const offerable = new FlowSamples(tools.values());
  const samples = new Map<string, SampleValue[]>();
  for (const { tool, outputs } of api) {
    const kept = offerable.offerable(outputs);
    if (kept.length > 0) samples.set(tool.name, kept);
  }
  return { tools, samples };
}
