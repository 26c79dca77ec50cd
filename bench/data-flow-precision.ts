/**
 * Precision and recall of data-flow links on a labelled set of (output field, input) pairs.
 *
 *   npm run bench -- data-flow-precision
 *
 * Labels (bench/data/tmdb-id-fields.json, by hand from TMDB's documentation): for every
 * identifier field of every RestBench TMDB tool's documented response, the record it identifies
 * (`results[].id` of /search/person: a person; `cast[].id` of /person/{person_id}/movie_credits:
 * a movie; `items`-style lists under an input's path list something else than that input).
 * Pairs: each labelled field × each required identifier input of each tool of the spec (the
 * consumer's path and name as routing sees them); a pair is true when the field identifies the
 * input's record (`person_id` ← a person's id). A pair is predicted when instance discovery's
 * data-flow score for that field alone reaches its threshold (what DataFlowIndex links on).
 * Figures per pair of (field, consumer tool) and per pair of (field, input name), deduplicated.
 */
import { readFileSync } from "node:fs";
import { dataFlowCandidates } from "../functions/probing";
import { isIdLike, parameterEntity } from "../functions/probing/vocabulary";
import { outputFields } from "../functions/toolnet/data-flow";
import type { ToolDefinition, ToolParameter } from "../functions/tools/definition";
import { importOpenApi } from "../functions/tools/openapi-import";
import { machineLine, table } from "./lib/stats";

interface Labels {
  entities: Record<string, Record<string, string | null>>;
}

interface Pair {
  producer: ToolDefinition;
  field: string;
  consumer: ToolDefinition;
  parameter: ToolParameter;
  truth: boolean;
}

/** The record an identifier input names (`movie_id` → movie; a bare `id` takes its path segment). */
const inputEntity = (consumer: ToolDefinition, parameter: ToolParameter): string => parameterEntity(consumer, parameter.name).join(" ");

function pairs(defs: readonly ToolDefinition[], labels: Labels): Pair[] {
  const out: Pair[] = [];
  for (const producer of defs) {
    for (const [field, entity] of Object.entries(labels.entities[producer.name] ?? {})) {
      if (entity === null) continue;
      for (const consumer of defs) {
        if (consumer.name === producer.name) continue;
        for (const parameter of consumer.parameters) {
          if (!parameter.required || !isIdLike(parameter.name)) continue;
          out.push({ producer, field, consumer, parameter, truth: inputEntity(consumer, parameter) === entity });
        }
      }
    }
  }
  return out;
}

/** True when data flow would link the field to the input: the field alone, as the producer documents it. */
function predicted(pair: Pair): boolean {
  const sample = outputFields(pair.producer).find((s) => s.path.replace(/\[\d+\]/g, "[]") === pair.field);
  if (sample === undefined) return false;
  const output = { tool: pair.producer.name, path: pair.producer.path, inputs: pair.producer.parameters.map((p) => p.name), samples: [sample] };
  return dataFlowCandidates(pair.consumer, pair.parameter, [output]).length > 0;
}

function score(rows: readonly { truth: boolean; predicted: boolean }[]): string[] {
  const tp = rows.filter((r) => r.truth && r.predicted).length;
  const fp = rows.filter((r) => !r.truth && r.predicted).length;
  const fn = rows.filter((r) => r.truth && !r.predicted).length;
  const trues = rows.filter((r) => r.truth).length;
  return [
    String(trues),
    String(rows.length - trues),
    String(tp + fp),
    (tp / Math.max(1, tp + fp)).toFixed(3),
    (tp / Math.max(1, tp + fn)).toFixed(3),
    String(fp),
    String(fn),
  ];
}

async function main(): Promise<void> {
  console.log(`# data-flow-precision — ${machineLine()}`);
  const defs = (await importOpenApi(JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as object)).tools;
  const labels = JSON.parse(readFileSync("bench/data/tmdb-id-fields.json", "utf8")) as Labels;
  const all = pairs(defs, labels).map((pair) => ({ ...pair, predicted: predicted(pair) }));
  const byName = new Map<string, { truth: boolean; predicted: boolean }>();
  for (const row of all) {
    const key = `${row.producer.name}\u0000${row.field}\u0000${row.parameter.name}\u0000${inputEntity(row.consumer, row.parameter)}`;
    const known = byName.get(key);
    byName.set(key, { truth: row.truth, predicted: (known?.predicted ?? false) || row.predicted });
  }
  console.log(
    `\nRestBench TMDB: ${defs.length} tools, ${Object.values(labels.entities).reduce((n, fields) => n + Object.values(fields).filter((e) => e !== null).length, 0)} labelled identifier fields`,
  );
  console.log(
    table(
      ["pairs", "true", "false", "predicted", "precision", "recall", "false links", "missed links"],
      [
        ["(field, consumer tool's input)", ...score(all)],
        ["(field, input name), deduplicated", ...score([...byName.values()])],
      ],
    ),
  );
  const wrong = all.filter((r) => r.predicted !== r.truth);
  if (process.argv.includes("--list"))
    for (const r of wrong) console.log(`${r.truth ? "MISSED" : "FALSE "} ${r.producer.name} ${r.field} → ${r.consumer.name}.${r.parameter.name}`);
}

await main();
