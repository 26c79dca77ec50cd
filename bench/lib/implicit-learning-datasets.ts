/** The dev streams the implicit-learning bench replays: each set's catalog (as import bodies and parsed definitions) and its tasks with gold tools. */
import { apiBankTrajectories } from "../../functions/toolnet/graph";
import type { ToolDefinition } from "../../functions/tools/definition";
import { importToolList } from "../../functions/tools/list-import";
import { importOpenApi } from "../../functions/tools/openapi-import";
import { WORLD_ORIGIN } from "../../test/helpers/service";
import { toolAlpacaItems } from "./routing-datasets";
import { batches, corpusItems, readData } from "./tool-corpus";

export interface Task {
  text: string;
  gold: string[];
}

export interface Dataset {
  label: string;
  /** Registration bodies for POST /v1/tools/import. */
  imports: Record<string, unknown>[];
  defs: ToolDefinition[];
  tasks: Task[];
}

type ListTool = {
  name: string;
  method: string;
  url: string;
  description: string;
  parameters: { name: string; in: string; required: boolean; type: string; description?: string }[];
};

function listDataset(label: string, source: string, items: ListTool[], tasks: Task[]): Dataset {
  const { tools } = importToolList(items);
  const names = new Set(tools.map((t) => t.name));
  const imports = batches(items, 2_500, 6 * 1024 * 1024).map((batch) => ({ format: "list", source, tools: batch }));
  return { label, imports, defs: tools, tasks: tasks.filter((t) => t.gold.length > 0 && t.gold.every((g) => names.has(g))) };
}

function apiBank(): Dataset {
  const catalog = readData("api-bank/api_catalog_from_source.json") as {
    apis: { name: string; description: string; input_parameters: Record<string, { type: string; description: string }> }[];
  };
  const typeOf = (t: string): string => ({ str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object" })[t] ?? "string";
  const items = catalog.apis.map((api) => ({
    name: api.name,
    method: "POST",
    url: `https://api-bank.example.com/${api.name}`,
    description: api.description,
    parameters: Object.entries(api.input_parameters).map(([name, p]) => ({
      name,
      in: "body",
      required: true,
      description: p.description,
      type: typeOf(p.type),
    })),
  }));
  const records = readData("api-bank/api_call_sequences.json") as { source: string; file: string; first_user_utterance: string; api_sequence: string[] }[];
  const utterance = new Map(records.map((r) => [`api-bank:${r.source}/${r.file}`, r.first_user_utterance]));
  const tasks = apiBankTrajectories(records).trajectories.map((t) => ({ text: utterance.get(t.id) ?? "", gold: [...t.tools] }));
  return listDataset("API-Bank", "api-bank", items, tasks);
}

function stableToolBench(): Dataset {
  const entries = readData("stabletoolbench/api_corpus.json") as { id: string }[];
  const items = corpusItems();
  const byId = new Map(entries.map((entry, i) => [entry.id, items[i]?.name ?? ""]));
  const queries = readData("stabletoolbench/retrieval_queries.json") as { query: string; relevant_api_ids: string[] }[];
  const tasks = queries.map((q) => ({ text: q.query, gold: [...new Set(q.relevant_api_ids.map((id) => byId.get(id) ?? ""))] }));
  return listDataset("StableToolBench (gold order as listed)", "stabletoolbench", items as ListTool[], tasks);
}

function sealTools(): Dataset {
  const tools = readData("seal-tools/tools.json") as {
    name: string;
    description: string;
    parameters: { name: string; type: string; required: boolean; description?: string }[];
  }[];
  const items = tools.map((t) => ({
    name: t.name,
    method: "POST",
    url: `https://seal-tools.example.com/${t.name}`,
    description: t.description,
    parameters: t.parameters.map((p) => ({
      name: p.name,
      in: "body",
      required: p.required,
      type: p.type,
      ...(p.description === undefined ? {} : { description: p.description }),
    })),
  }));
  const queries = readData("seal-tools/queries.json") as { split: string; query: string; gold: string[] }[];
  return listDataset(
    "Seal-Tools dev",
    "seal-tools",
    items,
    queries.filter((q) => q.split === "dev").map((q) => ({ text: q.query, gold: q.gold })),
  );
}

export async function restBench(): Promise<Dataset> {
  const document = readData("restbench-tmdb/openapi.json") as Record<string, unknown>;
  const serverUrl = `${WORLD_ORIGIN}/tmdb`;
  const { tools } = await importOpenApi(document, { serverUrl });
  const byOperation = new Map(tools.map((t) => [t.operation, t.name]));
  const tasks = (readData("restbench-tmdb/tasks.json") as { query: string; solution: string[] }[]).map((t) => ({
    text: t.query,
    gold: t.solution.map((op) => byOperation.get(op) ?? ""),
  }));
  return {
    label: "RestBench TMDB (held-out catalog)",
    imports: [{ format: "openapi", document, serverUrl }],
    defs: tools,
    tasks: tasks.filter((t) => t.gold.every((g) => g !== "")),
  };
}

function toolAlpaca(): Dataset {
  const { raw, items } = toolAlpacaItems();
  const { tools } = importToolList(items);
  const byName = new Map(raw.map((t, i) => [t.name, tools[i]?.name ?? ""]));
  const queries = readData("toolalpaca-eval/queries.json") as { query: string; gold: string[] }[];
  const imports = [{ format: "list", source: "toolalpaca", tools: items }];
  const tasks = queries.map((q) => ({ text: q.query, gold: q.gold.map((g) => byName.get(g) ?? "") }));
  return { label: "ToolAlpaca eval", imports, defs: tools, tasks: tasks.filter((t) => t.gold.length > 0 && t.gold.every((g) => g !== "")) };
}

export const DATASETS: Record<string, () => Dataset | Promise<Dataset>> = {
  toolalpaca: toolAlpaca,
  "api-bank": apiBank,
  stabletoolbench: stableToolBench,
  "seal-tools": sealTools,
  restbench: restBench,
};
