/** One probing run: a fresh world probed in one mode, with the scripted model behind the real client, and its figures. */
import { probeTools, type ProbeDependencies, type ProbeOptions, type ProbeReport } from "../../../functions/probing/chain-of-probing";
import { createModelClient } from "../../../functions/llm/client";
import { resolveModelConfig } from "../../../functions/llm/config";
import { openProbeWorld, type SeedRule, type WorldSpec } from "../probe-world";
import { codeBlocks, parseSignatures } from "./prompt-signatures";
import { scriptedProber } from "./scripted-prober";

export type Mode = "zero-token" | "+ model" | "model-first";

export interface RunFigures {
  world: string;
  mode: Mode;
  tools: number;
  probed: number;
  direct: number;
  chain: number;
  /** Probed through a model answer (I_p alone, or with helpers). */
  byModel: number;
  byModelAlone: number;
  byModelChain: number;
  failed: number;
  failures: { tool: string; error: string }[];
  modelCalls: number;
  /** Tools the model was asked about at all. */
  modelTools: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  toolCalls: number;
  iterations: number;
  wallMs: number;
  programRuns: number;
  clippedResults: number;
  /** Model-probed tools documented as a bare string: their result reached probing clipped by the trace. */
  documentedAsString: number;
  httpRequests: number;
}

/** `traceTool`: print the model's answers and the probing events for that tool (model-first run; `--trace`). */
export async function runOne(
  spec: WorldSpec,
  mode: Mode,
  seed: SeedRule,
  base: ProbeOptions,
  clipTraceResults: boolean,
  traceTool: string | undefined,
): Promise<RunFigures> {
  const world = await openProbeWorld(spec, seed, { clipTraceResults });
  const scripted = scriptedProber();
  const config = resolveModelConfig({ MODEL_BASE_URL: "https://model.scripted.test/v1", MODEL_API_KEY: "sk-scripted-probe", MODEL_NAME: "scripted-prober" });
  if (!config.ok) throw new Error(config.message);
  const client = createModelClient(config.config, { fetch: scripted.fetch, maxRetries: 0 });
  // Which tools a model program probed: its "program ok" event comes right before "probed".
  const lastEvent = new Map<string, string>();
  const byModel = new Set<string>();
  const deps: ProbeDependencies = {
    onProgress(event) {
      if (traceTool !== undefined && "tool" in event && event.tool === traceTool && mode === "model-first")
        console.log(`   [trace ${mode}] ${JSON.stringify(event).slice(0, 600)}`);
      if (event.type === "program" && event.ok) lastEvent.set(event.tool, "program");
      else if (event.type === "direct_call") lastEvent.set(event.tool, "direct");
      else if (event.type === "probed" && lastEvent.get(event.tool) === "program") byModel.add(event.tool);
    },
    callTool: world.callTool,
    runProgram: world.runProgram,
    // functions/jobs/probe-job.ts deps.chat.
    async chat(messages, purpose, tool) {
      const answer = await client.chat({ messages, purpose: `probe:${purpose}`, temperature: 0.2 });
      if (traceTool !== undefined && tool === traceTool && mode === "model-first") {
        const offered = parseSignatures(codeBlocks(String(messages[messages.length - 1]?.content ?? ""))[1] ?? "").map(
          (sig) =>
            `${sig.name}(${sig.params
              .filter((p) => p.required)
              .map((p) => p.name)
              .join(", ")})`,
        );
        console.log(`   [trace ${mode}] ${purpose}${offered.length > 0 ? ` (offered: ${offered.join("; ")})` : ""} answer:\n${answer.content ?? ""}`);
      }
      return { content: answer.content ?? "", usage: answer.usage, durationMs: answer.durationMs };
    },
  };
  const options: ProbeOptions = { ...base, ...(mode === "zero-token" ? { useModel: false } : mode === "model-first" ? { zeroToken: false } : {}) };
  const started = performance.now();
  const report: ProbeReport = await probeTools(world.tools, new Map(), deps, options);
  const wallMs = performance.now() - started;
  const probed = report.results.filter((r) => r.status === "probed");
  const modelProbed = probed.filter((r) => byModel.has(r.tool));
  return {
    world: spec.name,
    mode,
    tools: world.tools.length,
    probed: report.probed,
    direct: probed.filter((r) => r.how === "direct").length,
    chain: probed.filter((r) => r.how === "helper_chain" && !modelProbed.includes(r)).length,
    byModel: modelProbed.length,
    byModelAlone: modelProbed.filter((r) => r.how === "model").length,
    byModelChain: modelProbed.filter((r) => r.how === "helper_chain").length,
    failed: report.failed,
    failures: report.results.flatMap((r) => (r.status === "failed" ? [{ tool: r.tool, error: r.error }] : [])),
    modelCalls: report.modelCalls,
    modelTools: report.results.filter((r) => r.modelCalls > 0).length,
    promptTokens: report.usage.promptTokens,
    completionTokens: report.usage.completionTokens,
    totalTokens: report.usage.totalTokens,
    toolCalls: report.toolCalls,
    iterations: report.iterations,
    wallMs,
    programRuns: world.stats.programRuns,
    clippedResults: world.stats.clippedResults,
    documentedAsString: modelProbed.filter((r) => r.protocol.responseSchema === "str").length,
    httpRequests: scripted.chatRequests.length,
  };
}
