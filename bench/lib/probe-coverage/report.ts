/** Output: the table of runs, and the runs of every world summed. */
import { int, seconds } from "../stats";
import type { WorldSpec } from "../probe-world";
import type { Mode, RunFigures } from "./run";

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

export const fixed = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : "–");

export function rowsFor(runs: RunFigures[]): string[][] {
  return runs.map((r) => [
    r.mode,
    `${r.probed}/${r.tools}`,
    String(r.direct),
    String(r.chain),
    String(r.byModel),
    String(r.failed),
    String(r.modelCalls),
    fixed(r.modelCalls / r.tools, 2),
    r.modelTools === 0 ? "–" : fixed(r.modelCalls / r.modelTools, 2),
    int(r.totalTokens),
    r.probed === 0 ? "–" : int(r.totalTokens / r.probed),
    r.byModel === 0 ? "–" : int(r.totalTokens / r.byModel),
    String(r.toolCalls),
    seconds(r.wallMs),
  ]);
}

export const HEADERS = [
  "mode",
  "probed",
  "alone",
  "chain",
  "by model",
  "failed",
  "model calls",
  "calls/tool",
  "calls/asked",
  "tokens",
  "tok/probed",
  "tok/by-model",
  "tool calls",
  "wall",
];

export function sum(runs: RunFigures[], world: string, mode: Mode): RunFigures {
  const pick = runs.filter((r) => r.mode === mode);
  const total = (k: keyof RunFigures) => pick.reduce((s, r) => s + (r[k] as number), 0);
  return {
    world,
    mode,
    tools: total("tools"),
    probed: total("probed"),
    direct: total("direct"),
    chain: total("chain"),
    byModel: total("byModel"),
    byModelAlone: total("byModelAlone"),
    byModelChain: total("byModelChain"),
    failed: total("failed"),
    failures: pick.flatMap((r) => r.failures),
    modelCalls: total("modelCalls"),
    modelTools: total("modelTools"),
    promptTokens: total("promptTokens"),
    completionTokens: total("completionTokens"),
    totalTokens: total("totalTokens"),
    toolCalls: total("toolCalls"),
    iterations: Math.max(0, ...pick.map((r) => r.iterations)),
    wallMs: total("wallMs"),
    programRuns: total("programRuns"),
    clippedResults: total("clippedResults"),
    documentedAsString: total("documentedAsString"),
    httpRequests: total("httpRequests"),
  };
}

/** One world's runs: the table, then per mode what the model probed, what clipping cost and the failures. */
export function printWorld(spec: WorldSpec, worldRuns: RunFigures[], verbose: boolean): void {
  const tools = worldRuns[0]?.tools ?? 0;
  console.log(`== ${spec.name} (${spec.source}): ${tools} tools`);
  console.log(table(HEADERS, rowsFor(worldRuns)));
  for (const r of worldRuns) {
    if (r.byModel > 0)
      console.log(
        `   ${r.mode}: by model ${r.byModelAlone} alone (I_p) + ${r.byModelChain} with helpers (I_s + I_p); ${r.programRuns} programs run; prompt/completion tokens ${int(r.promptTokens)}/${int(r.completionTokens)}; ${r.iterations} chain iterations`,
      );
    if (r.clippedResults > 0 || r.documentedAsString > 0) {
      console.log(
        `   ${r.mode}: ${r.clippedResults} program tool results over 4,000 characters reached probing clipped (the tool gateway's trace); ${r.documentedAsString} model-probed tools documented as "str" because of it`,
      );
    }
    for (const f of r.failures.slice(0, verbose ? 100 : 5)) console.log(`   ${r.mode} FAILED ${f.tool}: ${f.error.replace(/\s+/g, " ").slice(0, 200)}`);
    if (!verbose && r.failures.length > 5) console.log(`   … ${r.failures.length - 5} more failures (--verbose lists them)`);
  }
  console.log("");
}

/** Every world's runs summed per mode, with the legend. */
export function printOverall(overall: RunFigures[], worlds: number, clipTraceResults: boolean): void {
  console.log(`== overall (${worlds} worlds, ${overall[0]?.tools ?? 0} tools)`);
  console.log(table(HEADERS, rowsFor(overall)));
  console.log(
    "\nalone = zero-token call from the schema; chain = data flow from probed tools (zero-token chain of probing); by model = a scripted-model program (I_p alone or with helpers);" +
      "\ncalls/tool = model calls per tool of the world; calls/asked = per tool the model was asked about; tok/probed = tokens per probed tool (the paper: 1,032–6,012 on average);" +
      "\ntok/by-model = tokens per tool probed by the model; wall = probeTools wall time;" +
      `\nclipped-as-str = tools documented as "str" because their traced result was clipped at 4,000 characters: ${overall.map((r) => `${r.mode} ${r.documentedAsString}`).join(", ")}${clipTraceResults ? " (--clip)" : ""}.`,
  );
}
