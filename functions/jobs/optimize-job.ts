import { protocolRunTokens } from "../services/protocol-overrides";
import { z } from "zod";
import type { JobRecord } from "../storage/tenant-jobs";
import type { JobStores } from "./job-stores";
import { parseCheckpoint, playToPrompt, type PlayCheckpoint, type PlayDependencies, type PlayEvent, type PlayResult } from "../prompt-play";
import type { ModelClient } from "../llm/client";
import { modelClientFor } from "../services/model-client";
import type { ToolDefinition } from "../tools/definition";
import { invokeTool } from "../services/invoke";
import { sideEffectMode } from "../probing/side-effects";
import { simulatedCopy } from "../simulated-world/tools-mount";
import { exploratoryDefinition } from "./exploratory-definition";
import { solveWith } from "./solve-with";
import type { SampleValue } from "../probing/protocol";
import { protocolStore, type OptimizedProtocol, type StoredProtocol } from "../storage/protocol-store";
import { MAX_ROUTING_SAMPLES } from "../toolnet/data-flow";

export const OptimizeJobRequest = z.object({ tool: z.string(), settings: z.record(z.string(), z.unknown()).default({}) });

/** What the job shows while it runs: the beam at each depth of both searches, with scores. */
interface OptimizeProgress {
  phase: string | null;
  beams: { phase: string; depth: number; nodes: unknown }[];
  rejectedInvocations: number;
  checkpoint?: PlayCheckpoint;
}

/**
 * A Play2Prompt job (§2): demonstrations found by playing with the real tool, then the
 * description the base model uses best. Checkpoints after every step (the job resumes from the
 * last one), stops at its budget keeping the best found, and records a new protocol version only
 * when the best description beats the original on the demonstration set.
 */
export async function runOptimizeJob(env: Env, tenantId: string, stores: JobStores, job: JobRecord): Promise<void> {
  const request = OptimizeJobRequest.parse(job.request);
  const record = await stores.registry.getTool(request.tool);
  if (record === undefined) {
    stores.jobs.finish(job.id, "failed", { error: `the tool ${request.tool} was deleted` });
    return;
  }
  const model = await modelClientFor(env, tenantId, stores);
  if (!model.ok) {
    stores.jobs.finish(job.id, "failed", { error: `prompt optimisation needs a model: ${model.problem.detail ?? model.problem.kind}` });
    return;
  }
  const tool = record.definition;
  // Tool play calls the tool many times with made-up arguments: a method that may change data is
  // played only where the tenant allows it, or against a simulated copy of the tool.
  const sideEffects = sideEffectMode(record, await stores.settings.sideEffects(), env.SIMULATED_WORLD_ORIGIN);
  if (sideEffects.mode === "skipped") {
    stores.jobs.finish(job.id, "failed", { tool: tool.name, skipped: true, error: `skipped: ${sideEffects.reason}` });
    return;
  }
  const call = toolPlayCaller(env, tenantId, stores, tool, sideEffects.mode === "simulated" ? simulatedCopy([tool]) : undefined);
  const saved = job.progress as Partial<OptimizeProgress>;
  const progress: OptimizeProgress = { phase: null, beams: saved.beams ?? [], rejectedInvocations: saved.rejectedInvocations ?? 0 };
  const resumeFrom = saved.checkpoint === undefined ? undefined : parseCheckpoint(saved.checkpoint, tool.name);
  const result = await playToPrompt(
    { tool, settings: request.settings, ...(resumeFrom === undefined ? {} : { resumeFrom }) },
    playDependencies({ tool, client: model.value, call, progress, stores, jobId: job.id }),
  );
  const version = result.improved ? await recordOptimizedProtocol(env, tenantId, stores, job.id, record, result) : null;
  if (version !== null) await teachDemonstrations(stores, tool.name, version, result.demonstrations);
  const { checkpoint: _checkpoint, ...shown } = progress;
  stores.jobs.progress(job.id, { ...shown, done: true }, { ...result.usage });
  stores.jobs.finish(job.id, "succeeded", {
    tool: tool.name,
    improved: result.improved,
    version,
    originalDescription: result.originalDescription,
    bestDescription: result.bestDescription,
    originalScore: result.originalScore,
    bestScore: result.bestScore,
    demonstrations: result.demonstrations,
    stoppedBy: result.stoppedBy,
    phases: result.phases,
    usage: result.usage,
  });
}

type ToolPlayCall = PlayDependencies["callTool"];

/** Calls the tool as tool play does: with exploratory arguments, against the simulated copy when there is one. */
function toolPlayCaller(
  env: Env,
  tenantId: string,
  stores: JobStores,
  tool: ToolDefinition,
  simulate: ReturnType<typeof simulatedCopy> | undefined,
): ToolPlayCall {
  return async (args) => {
    const outcome = await invokeTool(env, tenantId, stores, tool.name, args, {
      adaptDefinition: (def) => exploratoryDefinition(def, args),
      ...(simulate === undefined ? {} : { simulate }),
    });
    if (!outcome.found) return { ok: false, body: null, error: "the tool was deleted" };
    const { result } = outcome;
    return { ok: result.ok, status: result.status, body: result.body, error: result.error?.message };
  };
}

/** The job's model, tool and base-model solver for Play2Prompt, with progress and checkpoints stored on the job. */
function playDependencies(job: {
  tool: ToolDefinition;
  client: ModelClient;
  call: ToolPlayCall;
  progress: OptimizeProgress;
  stores: JobStores;
  jobId: string;
}): PlayDependencies {
  const { tool, client, call, progress, stores } = job;
  return {
    async chat(messages, purpose) {
      const answer = await client.chat({ messages, purpose: `play:${purpose}`, temperature: 0.7 });
      return { content: answer.content ?? "", usage: answer.usage, durationMs: answer.durationMs };
    },
    callTool: call,
    solveWith: (description, demonstration) =>
      solveWith(tool, description, demonstration, {
        async chat(messages) {
          const answer = await client.chat({ messages, purpose: "play:solve", temperature: 0 });
          return { content: answer.content ?? "", usage: answer.usage };
        },
        call,
      }),
    onProgress(event: PlayEvent) {
      if (event.type === "phase_started") progress.phase = event.phase;
      if (event.type === "invocation_rejected") progress.rejectedInvocations += 1;
      if (event.type === "beam") progress.beams.push({ phase: event.phase, depth: event.record.depth, nodes: event.record.beam });
    },
    onCheckpoint(state) {
      progress.checkpoint = state;
      stores.jobs.progress(job.jobId, { ...progress }, { ...state.usage });
    },
  };
}

/** Stores the improved description as the tool's new protocol version and returns its number. */
async function recordOptimizedProtocol(
  env: Env,
  tenantId: string,
  stores: JobStores,
  jobId: string,
  record: { definition: ToolDefinition; hash: string },
  result: PlayResult,
): Promise<number> {
  const tool = record.definition;
  const current = (await stores.protocols.currentMany([tool.name]))[0];
  const store = protocolStore(env, tenantId);
  // The version this one builds on (its probed schema, example and samples); a malformed one is reported by the store and not built on.
  const read = current !== undefined && current.hash === record.hash ? await store.read(current.kvKey) : undefined;
  const base = read?.status === "found" ? read.protocol : undefined;
  const top = result.demonstrations[0];
  const protocol: OptimizedProtocol = {
    ...base,
    name: tool.name,
    definitionHash: record.hash,
    description: result.bestDescription,
    descriptionSource: "optimized",
    ...(top === undefined
      ? {}
      : { example: { query: top.query, program: `return await tools.${tool.name}(${JSON.stringify(top.args)});`, arguments: top.args } }),
    optimization: {
      jobId,
      score: result.bestScore,
      originalScore: result.originalScore,
      originalDescription: result.originalDescription,
      demonstrations: result.demonstrations,
    },
  };
  const kvKey = await store.write(protocol);
  // Demonstration queries join the tool's retrieval document; probed output fields stay as they were.
  const routingHints = routingHintsAfterOptimization(base, result.demonstrations);
  const runTokens = protocolRunTokens(tool, protocol);
  const recorded = await stores.protocols.record({
    tool: tool.name,
    hash: record.hash,
    kvKey,
    source: "optimize",
    score: result.bestScore,
    jobId,
    description: result.bestDescription,
    routingHints,
    runTokens,
  });
  return recorded.version;
}

/**
 * The applied version's demonstration queries teach the tool's learned field as example requests
 * (replacing an earlier optimisation's), unless a pinned version kept this one from being current.
 */
async function teachDemonstrations(stores: JobStores, tool: string, version: number, demonstrations: readonly { query: string }[]): Promise<void> {
  const current = (await stores.protocols.currentMany([tool]))[0];
  if (current?.version !== version) return;
  await stores.routing.teachExamples(
    tool,
    demonstrations.map((d) => d.query),
  );
}

/** Routing hints of an optimised version: the probed example and samples kept, demonstration queries added. */
function routingHintsAfterOptimization(
  base: StoredProtocol | undefined,
  demonstrations: readonly { query: string }[],
): { queries: string[]; outputs: SampleValue[] } {
  const example = base?.example?.query;
  const outputs = (base?.samples ?? []).slice(0, MAX_ROUTING_SAMPLES);
  return { queries: [...(example === undefined ? [] : [example]), ...demonstrations.map((d) => d.query)], outputs };
}
