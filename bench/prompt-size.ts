/**
 * Prompt size of one routing step at 1,000 tools, against listing every tool, in tokens
 * (js-tiktoken, o200k_base: the GPT-4o / 4.1 / o-series encoding).
 *
 *   node bench/run.mjs prompt-size [--skip-build] [--steps=200]
 *
 * A tenant gets 1,000 tools and ≈ 10 observed successors per tool (as in route-latency). Then
 * `POST /v1/route` with k = 8 is asked `steps` times with a previous tool (graph step) and
 * `steps` times without (retrieval step), random tasks from StableToolBench's queries. Counted
 * per step: the `prompt` block, and the OpenAI `tools` array as JSON text.
 *
 * Listing every tool, the same two ways: all 1,000 tools as an OpenAI `tools` array
 * (`openAiTool` of each definition, the function /v1/route uses), and all 1,000 in the same
 * one-line-per-tool prompt format (`formatPromptBlock`, ranked by the start node's weights of
 * the same graph, with the service's short descriptions). Definitions come from the project's
 * `importToolList` on the very list sent to the service, and the bench checks that they
 * reproduce the service's answers exactly (each tools entry is the compact or required-only view
 * of the local definition, the prompt text is the same). Steps are compact views within the
 * default budget; the all-tools baseline is full definitions (answer-tokens compares like with like).
 *
 * Tokens of a `tools` array are counted on its JSON text; the API renders tools into its own
 * internal format before tokenising, so absolute counts differ somewhat, ratios much less.
 */
import { getEncoding } from "js-tiktoken";
import { addTools, addTrajectories, createGraph, formatPromptBlock, START, successors } from "../functions/toolnet/graph";
import { toolViews } from "../functions/toolnet/answer-budget";
import { answerPrompt } from "../functions/toolnet/answer-prompt";
import { openAiTool } from "../functions/toolnet/openai-tools";
import { importToolList } from "../functions/tools/list-import";
import { setUpTenant, startBenchService } from "./lib/bench-service";
import { corpusItems, readData, recordedTrajectories, syntheticWalks, toolItems } from "./lib/tool-corpus";
import { int, machineLine, randomInt, seconds, seededRandom, summary, table } from "./lib/stats";
import { shortDescription } from "../functions/toolnet/short-description";

const TOOLS = 1_000;
const K = 8;

interface RouteAnswer {
  via: string;
  candidates: { name: string; weight: number; view?: string }[];
  prompt: string;
  tools: unknown[];
}

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

async function main(): Promise<void> {
  const started = performance.now();
  const steps = Number(option("steps", "200"));
  if (!Number.isInteger(steps) || steps < 1 || steps > 5_000) throw new Error("--steps: 1..5000");
  console.log(`Prompt size of one routing step vs every tool, ${TOOLS} tools, o200k_base — ${machineLine()}`);
  const encoding = getEncoding("o200k_base");
  const tokens = (text: string): number => encoding.encode(text).length;

  const items = toolItems(TOOLS, corpusItems());
  const names = items.map((i) => i.name);
  const trajectories = [...recordedTrajectories(new Set(names)), ...syntheticWalks(names, 10, TOOLS)];
  const { tools: definitions } = importToolList(items);
  const defs = new Map(definitions.map((d) => [d.name, d]));
  if (defs.size !== TOOLS) throw new Error(`importToolList gave ${defs.size} tools`);

  const queries = (readData("stabletoolbench/retrieval_queries.json") as { query: string }[]).map((q) => q.query);
  const random = seededRandom(4242);
  const perStep = {
    graph: { prompt: [] as number[], tools: [] as number[], both: [] as number[] },
    retrieval: { prompt: [] as number[], tools: [] as number[], both: [] as number[] },
  };
  let toolEntriesChecked = 0;
  let promptsChecked = 0;

  const { service } = await startBenchService();
  try {
    const setup = await setUpTenant(service, "bench-prompt", items, trajectories);
    console.log(
      `tenant: ${TOOLS} tools, ${int(trajectories.length)} trajectories (${int(setup.transitions)} transitions) in ${seconds(setup.toolImportMs + setup.trajectoryImportMs)}`,
    );
    for (let i = 0; i < steps * 2; i += 1) {
      const kind = i % 2 === 0 ? "graph" : "retrieval";
      const task = queries[randomInt(random, queries.length)] ?? "";
      // Both parts: this benchmark measures the prompt block next to the tools array.
      const include = ["tools", "prompt"];
      const body = kind === "graph" ? { task, previousTool: names[randomInt(random, names.length)], k: K, mode: "graph", include } : { task, k: K, include };
      const answer = await service.json<RouteAnswer>("POST", "/v1/route", { key: setup.key, body });
      if (answer.status !== 200 || answer.body.via !== kind) throw new Error(`route: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
      const { prompt, tools, candidates } = answer.body;
      // The local definitions must be what the service holds: same tools entries, same prompt.
      for (const entry of tools) {
        const name = (entry as { function?: { name?: string } }).function?.name ?? "";
        const def = defs.get(name);
        const view = candidates.find((c) => c.name === name)?.view;
        const views = def === undefined ? undefined : toolViews(def);
        const expected = view === "required-only" ? views?.requiredOnly : views?.compact;
        if (expected === undefined || JSON.stringify(expected) !== JSON.stringify(entry))
          throw new Error(`tools entry for ${name} differs from the ${view ?? "?"} view of the local definition`);
        toolEntriesChecked += 1;
      }
      // Budgeted answers give the weights in the tools array's order; names and descriptions are in the tools entries.
      const local = answerPrompt({
        previous: kind === "graph" ? String(body.previousTool) : START,
        toolWeights: tools.map((entry) => candidates.find((c) => c.name === (entry as { function?: { name?: string } }).function?.name)?.weight ?? -1),
        finishWeight: candidates.find((c) => c.name === "Finish")?.weight,
        weights: kind === "graph" ? "transitions" : "fused",
      });
      if (local !== prompt) throw new Error(`local prompt block differs from the service's:\n${local}\n---\n${prompt}`);
      promptsChecked += 1;
      const p = tokens(prompt);
      const t = tokens(JSON.stringify(tools));
      perStep[kind].prompt.push(p);
      perStep[kind].tools.push(t);
      perStep[kind].both.push(p + t);
    }
  } finally {
    await service.dispose();
  }

  // Every tool: the OpenAI array, and the prompt format ranked by the start node's weights.
  const allToolsJson = JSON.stringify(definitions.map(openAiTool));
  const graph = createGraph();
  addTools(graph, names);
  addTrajectories(graph, trajectories, { unknownTools: "skip" });
  const allPrompt = formatPromptBlock({ previous: START, candidates: successors(graph, START, TOOLS), describe: (tool) => shortDescription(defs.get(tool)) });
  const allToolsTokens = tokens(allToolsJson);
  const allPromptTokens = tokens(allPrompt);

  console.log(`checked: ${promptsChecked} prompt blocks and ${toolEntriesChecked} tools entries identical to the local rendering\n`);
  console.log(
    `Every tool (${TOOLS}): OpenAI tools array ${int(allToolsTokens)} tokens (${int(allToolsJson.length)} chars); one-line prompt format ${int(allPromptTokens)} tokens (${int(allPrompt.length)} chars)\n`,
  );
  const rows: string[][] = [];
  for (const kind of ["graph", "retrieval"] as const) {
    const p = summary(perStep[kind].prompt);
    const t = summary(perStep[kind].tools);
    const b = summary(perStep[kind].both);
    rows.push([`${kind}: prompt block`, int(p.mean), int(p.p50), int(p.max), `${(allPromptTokens / p.mean).toFixed(1)}× (vs all, prompt format)`]);
    rows.push([`${kind}: tools array (k=${K})`, int(t.mean), int(t.p50), int(t.max), `${(allToolsTokens / t.mean).toFixed(1)}× (vs all, tools array)`]);
    rows.push([`${kind}: prompt + tools`, int(b.mean), int(b.p50), int(b.max), `${(allToolsTokens / b.mean).toFixed(1)}× (vs all, tools array)`]);
  }
  console.log(`One routing step (${steps} steps of each kind), tokens; target ≥ 10× smaller`);
  console.log(table(["per step", "mean", "p50", "max", "all tools ÷ step mean"], rows));
  console.log(
    `\nworst case (largest step of either kind, prompt + tools): ${(allToolsTokens / Math.max(...perStep.graph.both, ...perStep.retrieval.both)).toFixed(1)}× smaller than all ${TOOLS} tools as an OpenAI array`,
  );
  console.log(`\n${machineLine()}\ndone in ${seconds(performance.now() - started)}`);
}

await main();
