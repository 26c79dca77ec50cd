import { readFileSync } from "node:fs";
import { DataFlowIndex } from "../../functions/toolnet/data-flow";
import { toolDocument, ToolIndex } from "../../functions/toolnet/retrieval";
import type { ToolDefinition } from "../../functions/tools/definition";
import { importOpenApi } from "../../functions/tools/openapi-import";

/** RestBench TMDB's 54 operations (the dev data beside the worktree), their retrieval index and data-flow index. */
export async function tmdbRouting(): Promise<{ defs: Map<string, ToolDefinition>; index: ToolIndex; flow: DataFlowIndex }> {
  const document = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as object;
  const defs = new Map((await importOpenApi(document)).tools.map((t) => [t.name, t]));
  return { defs, index: ToolIndex.build([...defs.values()].map((d) => toolDocument(d))), flow: new DataFlowIndex(defs) };
}
