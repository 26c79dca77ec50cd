/**
 * The evaluation's task sets, read from `$ATC_DATA`, else `../shared/data` beside the checkout, else
 * the copies the repository carries for the simulated world (`kv-seed/world`, same layout):
 *
 * - RestBench TMDB: `restbench-tmdb/tasks.json` (`{idx, query, solution}`, the solution an ordered
 *   list of operations such as "GET /search/person"), tools from `openapi.json` imported with
 *   serverUrl `http://world.atc.test/tmdb`. Gold operations become tool names through each tool's
 *   `operation` field as `GET /v1/tools` lists it.
 * - AutoTools (ToolFlow-style): `autotools/tasks.json`, 60 tasks `{qid, dataset, query, api_list,
 *   solution}`. `solution` is an ordered list of `[toolName, times]` pairs (expanded here into a
 *   multiset: `["GET_search_recipes", 3]` is three gold calls). `api_list` comes in three shapes
 *   depending on the domain: food a list of names, weather an object name → URL, tmdb a list of
 *   `{api_name, …}` objects. Tools from `autotools/tools/{food,weather,tmdb}.tools.json`, imported
 *   as `format: "list"` with every endpoint retargeted to `http://world.atc.test/autotools/<domain>`
 *   + the URL's path (as `scripts/seed-demo.mjs` does).
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";

export const WORLD = "http://world.atc.test";
export type SetName = "restbench" | "autotools";
export const SET_NAMES: readonly SetName[] = ["restbench", "autotools"];
export const AUTOTOOLS_DOMAINS = ["food", "weather", "tmdb"] as const;
export type AutotoolsDomain = (typeof AUTOTOOLS_DOMAINS)[number];

export function dataDir(): string {
  return process.env.ATC_DATA ?? (existsSync(resolve("../shared/data")) ? resolve("../shared/data") : resolve("kv-seed/world"));
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(resolve(dataDir(), path), "utf8")) as unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One task as the data files give it, before gold operations are mapped to tool names. */
export interface RawTask {
  set: SetName;
  /** Stable id: `rb-<idx>` or `at-<qid>`. */
  id: string;
  query: string;
  /** RestBench: operations ("GET /search/person"); AutoTools: tool names. Ordered, repeats kept. */
  gold: string[];
  /** AutoTools only: the task's candidate tools (`api_list`), by name. */
  apiList?: string[];
  /** AutoTools only: food, weather or tmdb. */
  domain?: AutotoolsDomain;
}

/** A body for `POST /v1/tools/import`. */
export interface ImportBody {
  format: "openapi" | "list";
  source: string;
  document?: unknown;
  serverUrl?: string;
  tools?: unknown;
}

export interface TaskSetData {
  name: SetName;
  tasks: RawTask[];
  imports: ImportBody[];
}

export function loadRestBench(): TaskSetData {
  const raw = readJson("restbench-tmdb/tasks.json");
  if (!Array.isArray(raw)) throw new Error("restbench-tmdb/tasks.json: expected an array");
  const tasks: RawTask[] = raw.map((item: unknown, i) => {
    if (!isRecord(item) || typeof item.query !== "string" || !Array.isArray(item.solution)) throw new Error(`restbench task ${i}: unexpected shape`);
    const idx = typeof item.idx === "number" || typeof item.idx === "string" ? String(item.idx) : String(i);
    return { set: "restbench", id: `rb-${idx}`, query: item.query, gold: item.solution.map((s) => String(s).trim()) };
  });
  return {
    name: "restbench",
    tasks,
    imports: [{ format: "openapi", source: "tmdb", serverUrl: `${WORLD}/tmdb`, document: readJson("restbench-tmdb/openapi.json") }],
  };
}

/** `api_list` in any of its three shapes → tool names. */
export function apiListNames(apiList: unknown): string[] {
  if (Array.isArray(apiList)) {
    return apiList.flatMap((entry) => {
      if (typeof entry === "string") return [entry];
      if (isRecord(entry) && typeof entry.api_name === "string") return [entry.api_name];
      if (isRecord(entry) && typeof entry.name === "string") return [entry.name];
      return [];
    });
  }
  if (isRecord(apiList)) return Object.keys(apiList);
  return [];
}

/** `solution` → ordered gold names, `[name, times]` pairs expanded. */
export function expandSolution(solution: unknown): string[] {
  if (!Array.isArray(solution)) return [];
  return solution.flatMap((step) => {
    if (typeof step === "string") return [step];
    if (Array.isArray(step) && typeof step[0] === "string") {
      const times = typeof step[1] === "number" && Number.isInteger(step[1]) && step[1] > 0 ? step[1] : 1;
      return Array.from({ length: times }, () => step[0] as string);
    }
    return [];
  });
}

/** Point every endpoint of an autotools-style file at the simulated world's mount (as seed-demo.mjs does). */
export function retargetEndpoints(file: unknown, origin: string): Record<string, unknown> {
  if (!isRecord(file) || !Array.isArray(file.endpoints)) throw new Error("autotools tools file: expected {endpoints: [...]}");
  const endpoints = file.endpoints.map((endpoint: unknown) => {
    if (!isRecord(endpoint) || typeof endpoint.url !== "string") return endpoint;
    const url = new URL(endpoint.url.replaceAll("{", "%7B").replaceAll("}", "%7D"));
    return { ...endpoint, url: `${origin}${decodeURIComponent(url.pathname)}` };
  });
  return { ...file, servers: [{ url: origin }], endpoints };
}

export function loadAutotools(): TaskSetData {
  const raw = readJson("autotools/tasks.json");
  if (!Array.isArray(raw)) throw new Error("autotools/tasks.json: expected an array");
  const tasks: RawTask[] = raw.map((item: unknown, i) => {
    if (!isRecord(item) || typeof item.query !== "string") throw new Error(`autotools task ${i}: unexpected shape`);
    const domain = String(item.dataset) as AutotoolsDomain;
    if (!AUTOTOOLS_DOMAINS.includes(domain)) throw new Error(`autotools task ${i}: unknown dataset ${String(item.dataset)}`);
    const qid = typeof item.qid === "string" || typeof item.qid === "number" ? String(item.qid) : String(i);
    return {
      set: "autotools",
      // qids repeat across domains ("26" in tmdb, "q26"…): keep the domain in the id.
      id: `at-${domain}-${qid}`,
      query: item.query,
      gold: expandSolution(item.solution),
      apiList: apiListNames(item.api_list),
      domain,
    };
  });
  const imports: ImportBody[] = AUTOTOOLS_DOMAINS.map((domain) => ({
    format: "list",
    source: `autotools-${domain}`,
    tools: retargetEndpoints(readJson(`autotools/tools/${domain}.tools.json`), `${WORLD}/autotools/${domain}`),
  }));
  return { name: "autotools", tasks, imports };
}

export function loadSet(name: SetName): TaskSetData {
  return name === "restbench" ? loadRestBench() : loadAutotools();
}
