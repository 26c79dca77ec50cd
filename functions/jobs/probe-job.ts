import { protocolRunTokens } from "../services/protocol-overrides";
import { z } from "zod";
import type { JobRecord } from "../storage/tenant-jobs";
import type { JobStores } from "./job-stores";
import { runAttemptInIsolate } from "../sandbox/host/isolate-executor";
import { probeTools, type ProbeDependencies, type ProbeReport, type ProbeTarget } from "../probing/chain-of-probing";
import type { ToolDefinition } from "../tools/definition";
import { PROBE_PROGRAM_LIMITS } from "../common/run-defaults";
import type { ProbedProtocol } from "../probing/protocol";
import { protocolStore, type ProtocolStore } from "../storage/protocol-store";
import { Failure } from "../common/failures";
import { modelClientFor } from "../services/model-client";
import { MAX_ROUTING_SAMPLES } from "../toolnet/data-flow";
import { invokeTool } from "../services/invoke";
import { sideEffectMode } from "../probing/side-effects";
import { simulatedCopy } from "../simulated-world/tools-mount";

const ProbeJobRequest = z.object({
  tools: z.array(z.string()).min(1),
  samples: z.number().int().min(1).max(10).default(3),
  chainIterations: z.number().int().min(0).max(10).default(4),
});

/** The tenant's current probed protocols that still match their tools' definitions. */
async function probedProtocols(store: ProtocolStore, stores: Pick<JobStores, "protocols">, hashes: Map<string, string>): Promise<Map<string, ProbedProtocol>> {
  const current = await stores.protocols.currentMany([...hashes.keys()]);
  const stored = await store.readAll(current.filter((entry) => entry.source === "probe" && hashes.get(entry.tool) === entry.hash));
  const protocols = new Map<string, ProbedProtocol>();
  for (const [tool, protocol] of stored) if (protocol.descriptionSource !== "optimized") protocols.set(tool, protocol);
  return protocols;
}

/** Which tools a job probes, and how each tool may be called (real, simulated copy, skipped). */
interface ProbePlan {
  registered: Awaited<ReturnType<JobStores["registry"]["listTools"]>>;
  hashes: Map<string, string>;
  modeOf: (name: string) => "real" | "simulated" | "skipped";
  skipped: { tool: string; status: "skipped"; reason: string }[];
  simulate: ReturnType<typeof simulatedCopy> | undefined;
  targets: ProbeTarget[];
}

/**
 * A probing job (black-box probing with chain of probing, §4): every finished tool is written at
 * once (protocol to KV, then the pointer in the tenant object, then the job item), so a job that
 * is interrupted resumes with those tools already done; the model is used only where the
 * zero-token path fails, and not at all when no model is configured.
 */
export async function runProbeJob(env: Env, tenantId: string, stores: JobStores, job: JobRecord): Promise<void> {
  const request = ProbeJobRequest.parse(job.request);
  const plan = await probePlan(env, stores, job, request.tools);
  const store = protocolStore(env, tenantId);
  const already = await probedProtocols(store, stores, plan.hashes);
  // Helpers may be any probed tool of the tenant, not only this job's.
  // Helpers run inside programs, which reach real tools only: never a skipped or simulated one.
  const helperTargets = plan.registered
    .filter((t) => already.has(t.definition.name) && !request.tools.includes(t.definition.name) && plan.modeOf(t.definition.name) === "real")
    .map((t) => ({ definition: t.definition, hash: t.hash }));
  const model = await modelClientFor(env, tenantId, stores);
  const progress = { events: 0 };
  const deps = probeDependencies(env, tenantId, stores, job, plan, { store, model, progress });
  const report = await probeTools([...helperTargets, ...plan.targets], already, deps, {
    samples: request.samples,
    iterations: request.chainIterations,
    useModel: model.ok,
  });
  stores.jobs.finish(job.id, "succeeded", jobResult(report, request.tools, plan, model.ok));
  stores.jobs.progress(job.id, { events: progress.events, done: true }, { ...report.usage, modelCalls: report.modelCalls });
}

async function probePlan(env: Env, stores: JobStores, job: JobRecord, tools: readonly string[]): Promise<ProbePlan> {
  const registered = await stores.registry.listTools();
  const hashes = new Map(registered.map((t) => [t.definition.name, t.hash]));
  // Probing calls tools with made-up arguments: a method that may change data is called only
  // where the tenant allows it, against a simulated copy where it asks for one, else skipped.
  const sideEffects = await stores.settings.sideEffects();
  const modes = new Map(registered.map((t) => [t.definition.name, sideEffectMode(t, sideEffects, env.SIMULATED_WORLD_ORIGIN)]));
  const modeOf = (name: string) => modes.get(name)?.mode ?? "skipped";
  const skipped: ProbePlan["skipped"] = [];
  for (const name of tools) {
    const mode = modes.get(name);
    if (mode?.mode !== "skipped") continue;
    skipped.push({ tool: name, status: "skipped", reason: mode.reason });
    stores.jobs.setItem(job.id, name, "skipped", { reason: mode.reason });
  }
  for (const name of tools) {
    if (!hashes.has(name)) stores.jobs.setItem(job.id, name, "failed", { error: "the tool was deleted before it was probed" });
  }
  const simulatedDefinitions = registered.filter((t) => modeOf(t.definition.name) === "simulated").map((t) => t.definition);
  const targets = registered
    .filter((t) => tools.includes(t.definition.name) && modeOf(t.definition.name) !== "skipped")
    .map((t) => ({ definition: t.definition, hash: t.hash }));
  return {
    registered,
    hashes,
    modeOf,
    skipped,
    simulate: simulatedDefinitions.length === 0 ? undefined : simulatedCopy(simulatedDefinitions),
    targets,
  };
}

/** Probing's calls into the platform: tools as the plan allows them, programs in an isolate, the tenant's model, and the job's records. */
function probeDependencies(
  env: Env,
  tenantId: string,
  stores: JobStores,
  job: JobRecord,
  plan: ProbePlan,
  using: { store: ProtocolStore; model: Awaited<ReturnType<typeof modelClientFor>>; progress: { events: number } },
): ProbeDependencies {
  const { modeOf, simulate } = plan;
  const { model, progress } = using;
  const definitions = new Map(plan.registered.map((t) => [t.definition.name, t.definition]));
  return {
    async callTool(name, args) {
      const mode = modeOf(name);
      if (mode === "skipped") return { ok: false, body: null, error: `tool ${name} is not called by probing (it may change data)` };
      const outcome = await invokeTool(env, tenantId, stores, name, args, mode === "simulated" && simulate !== undefined ? { simulate } : {});
      if (!outcome.found) return { ok: false, body: null, error: `tool ${name} does not exist` };
      const { result } = outcome;
      return { ok: result.ok, status: result.status, body: result.body, error: result.error?.message };
    },
    async runProgram(program, allowedTools) {
      const tools = allowedTools.filter((name) => modeOf(name) === "real");
      const attempt = await runAttemptInIsolate(env, { tenantId, program, tools, replay: [], limits: PROBE_PROGRAM_LIMITS, fullResults: true });
      const { result } = attempt;
      return result.ok
        ? { ok: true, answer: result.answer, trace: attempt.trace }
        : { ok: false, error: { message: result.error.message }, trace: attempt.trace };
    },
    async chat(messages, purpose) {
      if (!model.ok) throw Failure.from(model.problem);
      const answer = await model.value.chat({ messages, purpose: `probe:${purpose}`, temperature: 0.2 });
      return { content: answer.content ?? "", usage: answer.usage, durationMs: answer.durationMs };
    },
    onProgress(event) {
      progress.events += 1;
      if (event.type === "tool_started") stores.jobs.setItem(job.id, event.tool, "probing", { iteration: event.iteration });
      stores.jobs.progress(job.id, { events: progress.events, last: event }, {});
    },
    onProbed: (protocol) => recordProtocol(stores, job, using.store, definitions, protocol),
    onFailed(tool, error) {
      stores.jobs.setItem(job.id, tool, "failed", { error });
    },
  };
}

/** A newly probed tool: its protocol to KV, then the pointer in the tenant object, then the job item. */
async function recordProtocol(
  stores: JobStores,
  job: JobRecord,
  store: ProtocolStore,
  definitions: ReadonlyMap<string, ToolDefinition>,
  protocol: ProbedProtocol,
): Promise<void> {
  // The value first, then the pointer: a reader never follows a pointer to nothing.
  const kvKey = await store.write(protocol);
  const description = protocol.descriptionSource === "model" ? (protocol.description ?? null) : null;
  const routingHints = { queries: [protocol.example.query], outputs: protocol.samples.slice(0, MAX_ROUTING_SAMPLES) };
  const definition = definitions.get(protocol.name);
  const runTokens = definition === undefined ? null : protocolRunTokens(definition, protocol);
  await stores.protocols.record({
    tool: protocol.name,
    hash: protocol.definitionHash,
    kvKey,
    source: "probe",
    score: null,
    jobId: job.id,
    description,
    routingHints,
    runTokens,
  });
  stores.jobs.setItem(job.id, protocol.name, "probed", { how: protocol.how, helpers: protocol.helpers, usage: protocol.usage });
}

/** The job's result: counts and one entry per tool it was asked to probe. */
function jobResult(report: ProbeReport, tools: readonly string[], plan: ProbePlan, modelUsed: boolean): Record<string, unknown> {
  const mine = report.results.filter((r) => tools.includes(r.tool));
  return {
    probed: mine.filter((r) => r.status === "probed").length,
    failed: mine.filter((r) => r.status === "failed").length,
    skipped: plan.skipped.length,
    resumed: mine.filter((r) => r.status === "probed" && r.resumed).length,
    modelUsed,
    results: [
      ...mine.map((r) =>
        r.status === "probed"
          ? {
              tool: r.tool,
              status: r.status,
              how: r.how,
              resumed: r.resumed,
              helpers: r.helpers,
              toolCalls: r.toolCalls,
              modelCalls: r.modelCalls,
              usage: r.usage,
              ...(plan.modeOf(r.tool) === "simulated" ? { simulated: true } : {}),
            }
          : r,
      ),
      ...plan.skipped,
    ],
    usage: report.usage,
    modelCalls: report.modelCalls,
    toolCalls: report.toolCalls,
  };
}
