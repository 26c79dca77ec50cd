/**
 * The dev sets of bench/routing-generalisation.ts, each imported with the project's own importers
 * (what a tenant importing that catalog gets), with its tasks and gold tools.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { apiBankTrajectories, stableToolBenchTrajectories, type Trajectory } from "../../functions/toolnet/graph";
import type { ToolDefinition } from "../../functions/tools/definition";
import { importToolList } from "../../functions/tools/list-import";
import { importOpenApi } from "../../functions/tools/openapi-import";
import { corpusItems } from "./tool-corpus";

const DATA = process.env.ATC_DATA ?? resolve("../shared/data");
const read = (path: string): unknown => JSON.parse(readFileSync(resolve(DATA, path), "utf8"));

export interface Task {
  id: string;
  text: string;
  /** Gold tools; ordered when the data set orders them. */
  gold: string[];
  /** Tasks held out together with this one (same gold sequence for API-Bank). */
  group: string;
}

export interface Dataset {
  label: string;
  defs: ToolDefinition[];
  tasks: Task[];
  ordered: boolean;
  /** Trajectories that are not tasks of the set (recorded runs), always in the graph. */
  background: Trajectory[];
}

// ---------------------------------------------------------------------------------------------
// Data sets, through the project's own importers.

export async function tmdb(): Promise<Dataset> {
  const { tools } = await importOpenApi(read("restbench-tmdb/openapi.json") as object, { serverUrl: "http://world.atc.test/tmdb" });
  const byOperation = new Map(tools.map((t) => [t.operation, t.name]));
  const tasks = (read("restbench-tmdb/tasks.json") as { idx: number; query: string; solution: string[] }[]).map((t) => ({
    id: `tmdb:${t.idx}`,
    text: t.query,
    gold: t.solution.map((op) => byOperation.get(op) ?? `missing:${op}`),
    group: `tmdb:${t.idx}`,
  }));
  return { label: "RestBench TMDB (LOO)", defs: tools, tasks, ordered: true, background: [] };
}

const TEMPLATE_TYPES: Record<string, number | string> = { int: 1, float: 1, str: "x", bool: 1 };

/** A StableToolBench template response (`{"id": "int"}`) as an example response of the right shape. */
function templateExample(template: unknown): unknown {
  if (typeof template === "string") return TEMPLATE_TYPES[template] ?? "x";
  if (Array.isArray(template)) return template.map(templateExample);
  if (typeof template === "object" && template !== null) return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, templateExample(v)]));
  return template;
}

export async function stableToolBench(): Promise<Dataset> {
  const entries = read("stabletoolbench/api_corpus.json") as { id: string; template_response?: unknown }[];
  // The bench corpus as bare-list items (ToolBench's own function names, so the recorded sequences
  // name the same tools), with the template responses as response examples (data flow).
  const items = corpusItems().map((item, i) => {
    const template = entries[i]?.template_response;
    return template === undefined ? item : { ...item, responseExample: templateExample(template) };
  });
  const byId = new Map(entries.map((entry, i) => [entry.id, items[i]?.name ?? `missing:${entry.id}`]));
  const { tools } = importToolList(items);
  const names = new Set(tools.map((t) => t.name));
  const tasks = (read("stabletoolbench/retrieval_queries.json") as { query_id: number; group: string; query: string; relevant_api_ids: string[] }[]).map(
    (q) => ({
      id: `stb:${q.group}:${q.query_id}`,
      text: q.query,
      gold: [...new Set(q.relevant_api_ids.map((id) => byId.get(id) ?? `missing:${id}`))],
      group: `stb:${q.group}:${q.query_id}`,
    }),
  );
  const background = stableToolBenchTrajectories(read("stabletoolbench/gpt35_tool_sequences.json")).trajectories.filter((t) =>
    t.tools.every((tool) => names.has(tool)),
  );
  return { label: "StableToolBench", defs: tools, tasks, ordered: false, background };
}

export async function apiBank(): Promise<Dataset> {
  const catalog = read("api-bank/api_catalog_from_source.json") as {
    apis: {
      name: string;
      description: string;
      input_parameters: Record<string, { type: string; description: string }>;
      output_parameters: Record<string, { type: string; description: string }>;
    }[];
  };
  const typeOf = (t: string): string => ({ str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object" })[t] ?? "string";
  const items = catalog.apis.map((api) => ({
    name: api.name,
    method: "POST",
    url: `https://api-bank.example/${api.name}`,
    description: api.description,
    parameters: Object.entries(api.input_parameters).map(([name, p]) => ({
      name,
      in: "body",
      required: true,
      description: p.description,
      type: typeOf(p.type),
    })),
    responseSchema: {
      type: "object",
      properties: Object.fromEntries(Object.entries(api.output_parameters).map(([name, p]) => [name, { type: typeOf(p.type), description: p.description }])),
    },
  }));
  const { tools } = importToolList(items);
  const records = read("api-bank/api_call_sequences.json") as { source: string; file: string; first_user_utterance: string; api_sequence: string[] }[];
  const parsed = apiBankTrajectories(records).trajectories;
  const utterance = new Map(records.map((r) => [`api-bank:${r.source}/${r.file}`, r.first_user_utterance]));
  const tasks = parsed.map((t) => ({ id: t.id, text: utterance.get(t.id) ?? "", gold: [...t.tools], group: t.tools.join(">") }));
  return { label: "API-Bank (leave-sequence-out)", defs: tools, tasks, ordered: true, background: [] };
}

interface PlainParameter {
  name: string;
  type?: string;
  required?: boolean;
  description?: string;
}

/** A set's own tool names as valid tool identifiers (`Nager.Date::CountryInfo` → `Nager_Date__CountryInfo`). */
const identifier = (name: string): string =>
  name
    .replace(/[^A-Za-z0-9_]/g, "_")
    .replace(/^([0-9])/, "_$1")
    .slice(0, 100);

/** Tasks of a set whose gold names tools by their set names; gold tools missing from the catalog are kept as `missing:`. */
function tasksOf(label: string, queries: { id: string; query: string; gold: string[] }[], byName: ReadonlyMap<string, string>): Task[] {
  return queries.map((q) => ({ id: `${label}:${q.id}`, text: q.query, gold: q.gold.map((g) => byName.get(g) ?? `missing:${g}`), group: `${label}:${q.id}` }));
}

/**
 * Seal-Tools: 4,076 self-instructed tools as a bare list (one server per tool: the set names no
 * APIs), the `Field/Subfield` as a tag; 2,054 queries of the dev and both test splits, gold ordered.
 */
export async function sealTools(): Promise<Dataset> {
  const raw = read("seal-tools/tools.json") as { name: string; description: string; parameters: PlainParameter[]; field?: string }[];
  const items = raw.map((t) => ({
    name: identifier(t.name),
    method: "POST",
    url: `https://seal-tools.example/${identifier(t.name)}`,
    description: t.description,
    parameters: t.parameters.map((p) => ({
      name: p.name,
      in: "body",
      required: p.required === true,
      ...(p.description === undefined ? {} : { description: p.description }),
      ...(p.type === undefined ? {} : { type: p.type }),
    })),
    tags: t.field === undefined ? [] : [t.field],
  }));
  const { tools } = importToolList(items);
  const byName = new Map(raw.map((t, i) => [t.name, tools[i]?.name ?? `missing:${t.name}`]));
  const tasks = tasksOf("seal", read("seal-tools/queries.json") as { id: string; query: string; gold: string[] }[], byName);
  return { label: "Seal-Tools", defs: tools, tasks, ordered: true, background: [] };
}

/**
 * ToolAlpaca's evaluation sets: 94 functions of 21 APIs as a bare list, one server per API (so an
 * API's functions are siblings), its name and category as tags; 208 chatty requests, gold ordered.
 */
export async function toolAlpaca(): Promise<Dataset> {
  const { raw, items } = toolAlpacaItems();
  const { tools } = importToolList(items);
  const byName = new Map(raw.map((t, i) => [t.name, tools[i]?.name ?? `missing:${t.name}`]));
  const tasks = tasksOf("alpaca", read("toolalpaca-eval/queries.json") as { id: string; query: string; gold: string[] }[], byName);
  return { label: "ToolAlpaca eval", defs: tools, tasks, ordered: true, background: [] };
}

/** ToolAlpaca's functions as list-import items (`raw`: as the set has them, in the same order). */
export function toolAlpacaItems() {
  const raw = read("toolalpaca-eval/tools.json") as {
    name: string;
    description: string;
    parameters: PlainParameter[];
    api: string;
    category?: string;
    method?: string;
    path?: string;
  }[];
  const items = raw.map((t) => ({
    name: identifier(t.name),
    method: t.method ?? "GET",
    url: `https://${identifier(t.api).toLowerCase().replace(/_/g, "-")}.toolalpaca.example${t.path ?? `/${identifier(t.name)}`}`,
    description: t.description,
    parameters: t.parameters.map((p) => ({
      name: p.name,
      required: p.required === true,
      ...(p.description === undefined ? {} : { description: p.description }),
      ...(p.type === undefined ? {} : { type: p.type }),
    })),
    tags: [t.api, ...(t.category === undefined ? [] : [t.category])],
  }));
  return { raw, items };
}
