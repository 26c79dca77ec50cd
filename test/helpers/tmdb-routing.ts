import { readFileSync } from "node:fs";
import { DataFlowIndex } from "../../functions/toolnet/data-flow";
import { toolDocument, ToolIndex } from "../../functions/toolnet/retrieval";
import { ToolDefinition } from "../../functions/tools/definition";
import { importOpenApi } from "../../functions/tools/openapi-import";

/** RestBench TMDB's 54 operations (the demo world's copy), by name. */
export async function tmdbTools(): Promise<Map<string, ToolDefinition>> {
  const document = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as object;
  return new Map((await importOpenApi(document)).tools.map((t) => [t.name, t]));
}

/** A GET tool of a made-up API, with the given parameters and (optionally) documented response. */
export function getTool(name: string, path: string, parameters: ToolDefinition["parameters"], responseSchema?: Record<string, unknown>): ToolDefinition {
  return ToolDefinition.parse({
    name,
    method: "GET",
    serverUrl: "https://api.example.com",
    path,
    operation: `GET ${path}`,
    parameters,
    ...(responseSchema === undefined ? {} : { responseSchema }),
  });
}

/** RestBench TMDB's 54 operations, their retrieval index and data-flow index. */
export async function tmdbRouting(): Promise<{ defs: Map<string, ToolDefinition>; index: ToolIndex; flow: DataFlowIndex }> {
  const defs = await tmdbTools();
  return { defs, index: ToolIndex.build([...defs.values()].map((d) => toolDocument(d))), flow: new DataFlowIndex(defs) };
}
