/**
 * Probing coverage on the simulated worlds (the probing issue's figures), all in Node: no workerd,
 * the QuickJS sandbox and the simulated world run in this process.
 *
 * Worlds: RestBench TMDB (`restbench-tmdb/openapi.json`, imported with serverUrl
 * http://world.atc.test/tmdb, served at /tmdb) and the AutoTools lists food, weather, tmdb and game
 * (endpoints retargeted to http://world.atc.test/autotools/<domain> + the URL's path, as
 * scripts/seed-demo.mjs does; served at /autotools/<domain>). Each world's definitions lose their
 * response documentation first (responseSchema / responseExample), since probing is for
 * undocumented tools. By default the world is seeded with nothing (`seed: "none"`, as the unit
 * test): an identifier is accepted only once a response has handed it out, as a real API would.
 *
 * Three configurations of `probeTools` (functions/probing/chain-of-probing.ts), each on a fresh
 * world:
 *   zero-token     `useModel: false`: schema-filled calls, then data flow (chain of probing);
 *   + model        the product default: the model is asked only where the zero-token path fails;
 *   model-first    `zeroToken: false`: every tool through the model (I_p, then I_s + I_p with
 *                  helpers), the paper's LLMProb, so that tokens per probed tool can be set
 *                  against the paper's 1,032–6,012.
 * The model is test/helpers/scripted-model.ts behind the real `openai` SDK (createModelClient with
 * the scripted fetch), with generic rules that read only the prompt: the target tool's typed
 * signature, the helper tools' signatures and documented result types, and earlier errors. No rule
 * knows any particular tool. Token figures are the scripted endpoint's o200k_base counts of the
 * real prompts and of the scripted answers.
 *
 * Program tool calls are traced as functions/services/tool-gateway.ts traces them: a GET result longer
 * than 4,000 characters is kept clipped, as text, in runs; probe jobs keep whole results
 * (`fullResults`), because chain-of-probing's I_p path documents the traced result. `--clip`
 * reproduces the clipping, to see what it would cost (tools documented as "str").
 *
 * Run: node bench/run.mjs probe-coverage [--seed none|entry-examples] [--samples N] [--iterations N]
 *      [--worlds tmdb,food,weather,autotools-tmdb,game] [--clip] [--verbose] [--trace TOOL] [--json FILE]
 *
 * The probing model and the runs live in bench/lib/probe-coverage/ (prompt signatures, plausible
 * values, producers, the scripted prober, one run, report); this file reads the options, runs
 * every world in each mode and prints the report.
 */
import { writeFileSync } from "node:fs";
import type { ProbeOptions } from "../functions/probing/chain-of-probing";
import { executeProgram } from "../functions/sandbox/index";
import { countTokens } from "../test/helpers/scripted-model";
import { printOverall, printWorld, sum } from "./lib/probe-coverage/report";
import { runOne, type RunFigures } from "./lib/probe-coverage/run";
import { machineLine, seconds } from "./lib/stats";
import { autotools, restbenchTmdb, sharedDataDir, type SeedRule, type WorldSpec } from "./lib/probe-world";

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
}

const seed = (flag("seed") ?? "none") as SeedRule;
if (seed !== "none" && seed !== "entry-examples") throw new Error("--seed is none or entry-examples");
const base: ProbeOptions = {
  ...(flag("samples") === undefined ? {} : { samples: Number(flag("samples")) }),
  ...(flag("iterations") === undefined ? {} : { iterations: Number(flag("iterations")) }),
};
const verbose = process.argv.includes("--verbose");
// Probe jobs keep whole results in the trace (`fullResults`), so the bench does too; `--clip`
// shows what clipping (as runs do) would cost probing.
const clipTraceResults = process.argv.includes("--clip");
/** --trace TOOL: print the model's answers and the probing events for one tool (model-first run). */
const traceTool = flag("trace");
const dir = sharedDataDir();
const allWorlds: Record<string, WorldSpec> = {
  tmdb: restbenchTmdb(dir),
  food: autotools(dir, "food"),
  weather: autotools(dir, "weather"),
  "autotools-tmdb": autotools(dir, "tmdb"),
  game: autotools(dir, "game"),
};
const chosen = (flag("worlds") ?? Object.keys(allWorlds).join(",")).split(",");
const specs = chosen.map((k) => {
  const spec = allWorlds[k];
  if (spec === undefined) throw new Error(`unknown world ${k}; one of ${Object.keys(allWorlds).join(", ")}`);
  return spec;
});

console.log("probe-coverage: black-box probing of undocumented tools on the simulated worlds (Node, QuickJS sandbox, scripted model)");
console.log(machineLine());
console.log(
  `world seed: ${seed}; samples N = ${base.samples ?? 3}; chain iterations β = ${base.iterations ?? 4}; response documentation stripped from every definition`,
);

// Warm-up outside the timings: the QuickJS wasm compile and the tokenizer load happen once per process.
const warm = performance.now();
await executeProgram("return 1;", { tools: [], callTool: async () => undefined });
await countTokens("warm up");
console.log(`warm-up (QuickJS compile, o200k_base load): ${seconds(performance.now() - warm)}\n`);

const everything = performance.now();
const runs: RunFigures[] = [];
for (const spec of specs) {
  const worldRuns: RunFigures[] = [];
  for (const mode of ["zero-token", "+ model", "model-first"] as const) worldRuns.push(await runOne(spec, mode, seed, base, clipTraceResults, traceTool));
  runs.push(...worldRuns);
  printWorld(spec, worldRuns, verbose);
}

const overall = (["zero-token", "+ model", "model-first"] as const).map((mode) => sum(runs, "overall", mode));
printOverall(overall, specs.length, clipTraceResults);
console.log(`\ntotal wall time: ${seconds(performance.now() - everything)}`);

const jsonFile = flag("json");
if (jsonFile !== undefined) {
  writeFileSync(jsonFile, JSON.stringify({ seed, options: base, machine: machineLine(), runs, overall }, null, 2));
  console.log(`wrote ${jsonFile}`);
}
