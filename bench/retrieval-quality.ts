/**
 * Retrieval quality and speed of the lexical tool ranking (functions/toolnet/retrieval).
 *
 * Run from the repository root (data is read from ../shared/data, or $ATC_DATA):
 *
 *   node_modules/.bin/esbuild bench/retrieval-quality.ts --bundle --platform=node --format=esm --outfile=/tmp/rq.mjs && node /tmp/rq.mjs
 *
 * recall@k of one query = |gold tools ∩ top k tools| / |gold tools| (gold deduplicated);
 * the figure printed is its mean over all queries. all@k = share of queries with every gold
 * tool in the top k.
 *
 * (a) RestBench TMDB: 100 tasks, gold `solution` operations ("GET /search/person"), against
 *     the 54 operations of the TMDB OpenAPI document, turned into ToolDefinition-shaped objects
 *     here (not with the project's importer, which is written elsewhere).
 * (b) StableToolBench: 704 queries, gold `relevant_api_ids`, against the whole corpus of 2,479
 *     RapidAPI operations. A corpus entry has no path, so: name = `<tool>_<api>` as an
 *     identifier, summary = api_name, description = api_description, path = `/<api_name>`,
 *     tags = [tool_name, category_name] (what an importer would take from the API's title and
 *     category), parameters = required + optional parameters.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { gzipSync } from "node:zlib";
import type { HttpMethod, ToolDefinition, ToolParameter } from "../functions/tools/definition";
import { analyze, DEFAULT_TUNING, toolDocument, ToolIndex, type RankingTuning, type ToolDoc } from "../functions/toolnet/retrieval/index";
import { buildEngine, engineSearch, toSearchOptions } from "../functions/toolnet/retrieval/minisearch-engine";

const DATA = process.env.ATC_DATA ?? resolve("../shared/data");

interface Query {
  text: string;
  gold: string[];
}

interface Dataset {
  label: string;
  docs: ToolDoc[];
  queries: Query[];
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(resolve(DATA, path), "utf8"));
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function asString(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Same spirit as the importer's names: words of letters and digits, camelCased. */
function identifier(raw: string): string {
  const words = raw.match(/[A-Za-z0-9]+/g) ?? [];
  const name = words
    .map((word, i) => {
      const normal = word === word.toUpperCase() ? word.toLowerCase() : word;
      return (i === 0 ? normal.charAt(0).toLowerCase() : normal.charAt(0).toUpperCase()) + normal.slice(1);
    })
    .join("");
  const safe = /^[A-Za-z_]/.test(name) ? name : `_${name}`;
  return safe.slice(0, 100);
}

function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n += 1) name = `${base.slice(0, 95)}_${n}`;
  taken.add(name);
  return name;
}

const METHODS: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"];

function loadTmdb(): Dataset {
  const doc = asRecord(readJson("restbench-tmdb/openapi.json"));
  const components = asRecord(asRecord(doc.components).parameters);
  const deref = (p: unknown): Record<string, unknown> => {
    const ref = asString(asRecord(p).$ref);
    return ref.startsWith("#/components/parameters/") ? asRecord(components[ref.split("/").pop() ?? ""]) : asRecord(p);
  };
  const taken = new Set<string>();
  const byOperation = new Map<string, string>();
  const docs: ToolDoc[] = [];
  for (const [path, item] of Object.entries(asRecord(doc.paths))) {
    const pathItem = asRecord(item);
    for (const method of METHODS) {
      const op = pathItem[method.toLowerCase()];
      if (op === undefined) continue;
      const operation = asRecord(op);
      const parameters: ToolParameter[] = [...asArray(pathItem.parameters), ...asArray(operation.parameters)].map(deref).map((p) => ({
        name: asString(p.name) || "param",
        in: p.in === "path" || p.in === "header" ? p.in : "query",
        required: p.required === true,
        description: asString(p.description),
        schema: asRecord(p.schema),
      }));
      const def: ToolDefinition = {
        name: uniqueName(identifier(asString(operation.operationId) || `${method} ${path}`), taken),
        method,
        serverUrl: "https://api.themoviedb.org/3",
        path,
        operation: `${method} ${path}`,
        summary: asString(operation.summary),
        description: asString(operation.description),
        parameters,
        tags: asArray(operation.tags).map(asString),
      };
      byOperation.set(def.operation, def.name);
      docs.push(toolDocument(def));
    }
  }
  const queries = asArray(readJson("restbench-tmdb/tasks.json")).map((t) => {
    const task = asRecord(t);
    const gold = [...new Set(asArray(task.solution).map(asString))].map((op) => byOperation.get(op) ?? `missing:${op}`);
    return { text: asString(task.query), gold };
  });
  return { label: "RestBench TMDB", docs, queries };
}

function loadStableToolBench(): Dataset {
  const taken = new Set<string>();
  const byId = new Map<string, string>();
  const docs: ToolDoc[] = [];
  for (const entry of asArray(readJson("stabletoolbench/api_corpus.json"))) {
    const api = asRecord(entry);
    const toolName = asString(api.tool_name);
    const apiName = asString(api.api_name);
    const toParameter =
      (required: boolean) =>
      (p: unknown): ToolParameter => {
        const param = asRecord(p);
        return {
          name: asString(param.name) || "param",
          in: "query",
          required,
          description: asString(param.description),
          schema: { type: asString(param.type).toLowerCase() },
        };
      };
    const path = apiName.startsWith("/") ? apiName : `/${apiName}`;
    const def: ToolDefinition = {
      name: uniqueName(identifier(`${toolName} ${apiName}`) || "operation", taken),
      method: "GET",
      serverUrl: "https://example.p.rapidapi.com",
      path,
      operation: `GET ${path}`,
      summary: apiName,
      description: asString(api.api_description),
      parameters: [...asArray(api.required_parameters).map(toParameter(true)), ...asArray(api.optional_parameters).map(toParameter(false))],
      tags: [toolName, asString(api.category_name)].filter((tag) => tag !== ""),
    };
    byId.set(asString(api.id), def.name);
    docs.push(toolDocument(def));
  }
  const queries = asArray(readJson("stabletoolbench/retrieval_queries.json")).map((q) => {
    const query = asRecord(q);
    const gold = [...new Set(asArray(query.relevant_api_ids).map(asString))].map((id) => byId.get(id) ?? `missing:${id}`);
    return { text: asString(query.query), gold };
  });
  return { label: "StableToolBench", docs, queries };
}

interface Quality {
  recall5: number;
  recall10: number;
  all5: number;
  all10: number;
}

function quality(index: ToolIndex, queries: readonly Query[]): Quality {
  const sum = { recall5: 0, recall10: 0, all5: 0, all10: 0 };
  for (const query of queries) {
    const top = index.search(query.text, 10).map((r) => r.name);
    for (const k of [5, 10] as const) {
      const found = new Set(top.slice(0, k));
      const hits = query.gold.filter((g) => found.has(g)).length;
      const recall = query.gold.length === 0 ? 1 : hits / query.gold.length;
      if (k === 5) {
        sum.recall5 += recall;
        sum.all5 += recall === 1 ? 1 : 0;
      } else {
        sum.recall10 += recall;
        sum.all10 += recall === 1 ? 1 : 0;
      }
    }
  }
  const n = queries.length;
  return { recall5: sum.recall5 / n, recall10: sum.recall10 / n, all5: sum.all5 / n, all10: sum.all10 / n };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

const ms = (value: number): string => `${value.toFixed(2)} ms`;
const kib = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;
const pct = (value: number): string => value.toFixed(3);

/** Build, serialise, reload and search timings for one corpus size; rankings checked against MiniSearch. */
function speed(label: string, docs: readonly ToolDoc[], queries: readonly string[], shortQueries: readonly string[]): void {
  // One untimed round first, so that JIT compilation is not billed to the smaller corpus.
  ToolIndex.fromBytes(ToolIndex.build(docs).toBytes()).search("warm up", 10);
  const runs = 5;
  const buildTimes: number[] = [];
  let index = ToolIndex.build([]);
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    index = ToolIndex.build(docs);
    index.search("warm up", 1); // merges the added tools and computes impacts
    buildTimes.push(performance.now() - start);
  }
  const toBytesTimes: number[] = [];
  let bytes: Uint8Array = new Uint8Array(0);
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    bytes = index.toBytes();
    toBytesTimes.push(performance.now() - start);
  }
  const gzipBytes = gzipSync(bytes).length;
  const loadTimes: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const copy = bytes.slice();
    const start = performance.now();
    ToolIndex.fromBytes(copy).search("warm up", 1);
    loadTimes.push(performance.now() - start);
  }
  index = ToolIndex.fromBytes(bytes);
  for (const q of queries.slice(0, 50)) index.search(q, 10); // warm-up
  const timeSearches = (texts: readonly string[], k: number, search: (q: string, k: number) => unknown): number[] => {
    const out: number[] = [];
    for (const q of texts) {
      const start = performance.now();
      search(q, k);
      out.push(performance.now() - start);
    }
    return out.sort((a, b) => a - b);
  };
  const latencies = timeSearches(queries, 10, (q, k) => index.search(q, k));
  const deep = timeSearches(queries, 30, (q, k) => index.search(q, k));
  const shortLatencies = timeSearches(shortQueries, 10, (q, k) => index.search(q, k));
  // MiniSearch, the scoring reference the impact index replaced: same queries, same depth.
  const engine = buildEngine(docs);
  const options = toSearchOptions(DEFAULT_TUNING);
  const reference = timeSearches(queries, 30, (q, k) => engineSearch(engine, q, k, options));
  const same = queries.filter((q) => JSON.stringify(engineSearch(engine, q, 30, options)) === JSON.stringify(index.search(q, 30))).length;
  const first = docs[0];
  const updateTimes: number[] = [];
  if (first !== undefined) {
    for (let i = 0; i < 20; i += 1) {
      const start = performance.now();
      index.add({ ...first, description: `${first.description} revision ${i}` });
      index.search("warm up", 1);
      updateTimes.push(performance.now() - start);
    }
  }
  console.log(`\n${label}: ${docs.length} docs, ${queries.length} queries`);
  console.log(`  build, impacts included (median of ${runs})  ${ms(median(buildTimes))}`);
  console.log(`  toBytes                        ${ms(median(toBytesTimes))}`);
  console.log(`  stored size                    ${kib(bytes.byteLength)}, ${kib(gzipBytes)} gzip`);
  console.log(`  load: fromBytes (+ first query) ${ms(median(loadTimes))}`);
  console.log(`  replace one tool + next query  ${ms(median(updateTimes))} (merge and impacts recomputed)`);
  console.log(
    `  search top-10 p50 / p99 / max  ${ms(percentile(latencies, 50))} / ${ms(percentile(latencies, 99))} / ${ms(latencies[latencies.length - 1] ?? Number.NaN)}  (StableToolBench tasks, ~${meanTerms(queries)} terms)`,
  );
  console.log(
    `  search top-30 p50 / p99        ${ms(percentile(deep, 50))} / ${ms(percentile(deep, 99))}; MiniSearch ${ms(percentile(reference, 50))} / ${ms(percentile(reference, 99))}`,
  );
  console.log(`  rankings identical to MiniSearch (tools, order, scores) ${same} / ${queries.length}`);
  console.log(
    `  short tasks p50 / p99           ${ms(percentile(shortLatencies, 50))} / ${ms(percentile(shortLatencies, 99))}  (RestBench tasks, ~${meanTerms(shortQueries)} terms)`,
  );
}

function meanTerms(queries: readonly string[]): number {
  return Math.round(queries.reduce((sum, q) => sum + analyze(q).length, 0) / Math.max(1, queries.length));
}

/** `count` docs made from `docs` by cycling through them; copies get distinct names and a marker tag. */
function synthetic(docs: readonly ToolDoc[], count: number): ToolDoc[] {
  const out: ToolDoc[] = [];
  for (let i = 0; i < count; i += 1) {
    const doc = docs[i % docs.length];
    if (doc === undefined) break;
    const copy = Math.floor(i / docs.length);
    out.push(copy === 0 ? doc : { ...doc, name: `${doc.name}_v${copy}`, tags: `${doc.tags} variant${copy}` });
  }
  return out;
}

const VARIANTS: readonly (readonly [string, Partial<RankingTuning>])[] = [
  ["default", {}],
  [
    "all boosts 1",
    {
      boosts: {
        name: 1,
        operation: 1,
        summary: 1,
        description: 1,
        parameters: 1,
        parameterDocs: 1,
        tags: 1,
        action: 1,
        examples: 1,
        outputs: 0.5,
        siblings: 1,
        phrases: 1,
        values: 1,
        api: 1,
      },
    },
  ],
  ["no parameter fields", { boosts: { ...DEFAULT_TUNING.boosts, parameters: 0, parameterDocs: 0 } }],
  ["no tags", { boosts: { ...DEFAULT_TUNING.boosts, tags: 0 } }],
  ["prefix ≥ 4", { prefixMinLength: 4 }],
  ["fuzzy ≥ 5", { fuzzyMinLength: 5 }],
  ["BM25+ d=0.5, b=0.7", { bm25: { k: 1.2, b: 0.7, d: 0.5 } }],
  ["bm25 b=0.5", { bm25: { ...DEFAULT_TUNING.bm25, b: 0.5 } }],
  ["bm25 k=2.0", { bm25: { ...DEFAULT_TUNING.bm25, k: 2 } }],
  ["repeats in full (k3=∞)", { queryTermSaturation: Infinity }],
];

function main(): void {
  const sets = [loadTmdb(), loadStableToolBench()];
  const onlyDefault = process.argv.includes("--quick");
  console.log("Lexical recall (recall@k = mean over queries of |gold ∩ top-k| / |gold|; all@k = share of queries with all gold in top-k)");
  for (const set of sets) {
    const missing = set.queries.flatMap((q) => q.gold).filter((g) => g.startsWith("missing:"));
    console.log(
      `\n${set.label}: ${set.docs.length} tools, ${set.queries.length} queries${missing.length > 0 ? `, ${missing.length} gold ids not in corpus` : ""}`,
    );
    console.log("  variant                 recall@5  recall@10  all@5  all@10");
    for (const [label, tuning] of onlyDefault ? VARIANTS.slice(0, 1) : VARIANTS) {
      const q = quality(ToolIndex.build(set.docs, tuning), set.queries);
      console.log(
        `  ${label.padEnd(22)}  ${pct(q.recall5).padStart(8)}  ${pct(q.recall10).padStart(9)}  ${pct(q.all5).padStart(5)}  ${pct(q.all10).padStart(6)}`,
      );
    }
  }
  const [tmdb, stb] = sets;
  if (tmdb === undefined || stb === undefined) return;
  const texts = stb.queries.map((q) => q.text);
  const shortTexts = tmdb.queries.map((q) => q.text);
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(
    `\nSpeed — Node ${process.version}, ${cpus().length} × ${cpu}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  speed("StableToolBench corpus", stb.docs, texts, shortTexts);
  speed("Synthetic (corpus replicated, renamed)", synthetic(stb.docs, 10_000), texts, shortTexts);
}

main();
