/**
 * Routing that generalises: first-step retrieval, later-step candidates and run candidate sets
 * on tasks the tenant has not seen, with and without each signal, against plain retrieval.
 *
 *   npm run bench -- routing-generalisation        (pure code in Node, no workerd; ~1 minute)
 *
 * Data (dev sets in ../shared/data, or $ATC_DATA), tools imported with the project's importers:
 * - RestBench TMDB: the 54 operations of openapi.json (importOpenApi); 100 tasks with ordered gold
 *   solutions. Leave-one-out: for each task, the graph (static construction, eq. 5) and the task
 *   memory are built from the 99 other tasks' gold paths and texts.
 * - StableToolBench: the 2,479-operation corpus as a bare list (importToolList, template responses
 *   as response examples); 704 queries with unordered gold. Graph from the recorded gpt-3.5
 *   sequences; task memory from the other queries (leave-one-out). No ordered gold, so no
 *   later-step figure.
 * - API-Bank: the catalog's 75 APIs as a bare list (output parameters as the response schema);
 *   313 dialogues, first utterance as the task. Leave-one-sequence-out: every record with the
 *   same call sequence is held out together (313 records hold only 126 distinct sequences).
 *
 * Figures: first-step recall@5/@10 (the first gold tool for ordered sets, the gold set for
 * StableToolBench); later-step hit@5/@10 (gold next tool among k candidates after the gold
 * previous tool; tools only, Finish not counted); run candidate-set recall at ≤ 10 tools and the
 * share of tasks with every gold tool; tokens. Every variant runs on the same tasks in one run.
 * `--embeddings=local` adds the variants routing answers when the task is embedded (the offline
 * encoder of `npm run embeddings-server`; or an endpoint URL), beside the lexical ones.
 * `--prf=…`, `--api-evidence=…`, `--query-stop=…`, `--drop-common=…`, `--coord=…` add first-step
 * rows of retrieval variants tried and not kept (pseudo-relevance feedback, API-level evidence,
 * conversational stop words, common-word cut, softer coordination; bench/lib/retrieval-variants.ts),
 * each with coverage and fusion as routing applies them, against the default in the same run.
 *
 * The measuring lives in bench/lib/routing-generalisation/ (options, context, one module per step,
 * calibration, report); this file runs the datasets asked for and prints each one's report.
 */
import { apiBank, sealTools, stableToolBench, tmdb, toolAlpaca, type Dataset } from "./lib/routing-datasets";
import { openEmbeddingVectors } from "./lib/embedding-vectors";
import { DENSE_WEIGHTS, EMBEDDINGS } from "./lib/routing-generalisation/options";
import { evaluate } from "./lib/routing-generalisation/evaluate";
import { print } from "./lib/routing-generalisation/print";
import { machineLine } from "./lib/stats";

async function main(): Promise<void> {
  console.log(`# routing-generalisation — ${machineLine()}`);
  const only = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  const loaders: [string, () => Promise<Dataset>][] = [
    ["tmdb", tmdb],
    ["stb", stableToolBench],
    ["apibank", apiBank],
    ["seal", sealTools],
    ["alpaca", toolAlpaca],
  ];
  const vectors = EMBEDDINGS === undefined ? undefined : await openEmbeddingVectors(process.cwd(), EMBEDDINGS);
  if (vectors !== undefined) console.log(`\nEmbeddings: ${vectors.model} (${EMBEDDINGS?.endpoint}), weight ${DENSE_WEIGHTS.join(" / ")} against BM25's 1`);
  try {
    for (const [key, load] of loaders) {
      if (only.length > 0 && !only.includes(key)) continue;
      const dataset = await load();
      const started = performance.now();
      const report = await evaluate(dataset, vectors);
      print(dataset, report);
      console.log(`(${((performance.now() - started) / 1000).toFixed(1)} s)`);
    }
  } finally {
    await vectors?.close();
  }
}

await main();
