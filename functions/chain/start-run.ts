import type { TenantApi } from "../../durable-objects/tenant-api";
import { Failure, unwrap } from "../failures";
import { ModelCallError } from "../llm/errors";
import { modelClientFor } from "../tenants/model-client";
import type { ToolDefinition } from "../tools/definition";
import { protocolStore } from "../probing/protocol-store";
import { protocolOverrides } from "./protocol-overrides";
import { evaluationFromRun } from "./run-learning";
import { yieldToEventLoop } from "../sandbox/fuel";
import { runAttemptInIsolate, type AttemptLimits } from "../sandbox/host/isolate-executor";
import { runTask, type RunEvent, type RunOutcome } from "./run-task";
import type { StoredRun } from "./stored-run";

export interface RunSettings {
  maxAttempts: number;
  feedbackTokenBudget: number;
  limits: AttemptLimits;
}


/** The stored record of a run that stopped before it had an outcome. */
function unfinishedRun(id: string, task: string, candidates: string[], candidateSource: StoredRun["candidateSource"], started: number, error: unknown) {
  const reason = error instanceof ModelCallError ? { kind: `model:${error.kind}`, message: `The model endpoint failed: ${error.message}` } : { kind: "internal", message: "The run failed on our side." };
  return { id, task, status: "failed", error: reason, attempts: [], candidates, candidateSource, createdAt: new Date(started).toISOString(), timings: { totalMs: Date.now() - started } };
}

/**
 * Routing's candidate set for a run: up to 12 tools, 6 of them expanded with their successors;
 * the budget is in tokens of what the prompt shows per tool (typed signature and description).
 */
const RUN_CANDIDATES = { seeds: 6, maxTools: 12, tokenBudget: 6_000 };

/** The tools of a run: the ones the request names (all must exist), or routing's candidate set. */
export async function chooseCandidates(
  tenant: TenantApi,
  task: string,
  named: string[] | undefined,
): Promise<{ tools: ToolDefinition[]; hashes: Map<string, string>; source: "request" | "routing" }> {
  const names = named ?? (await tenant.routing.candidates(task, RUN_CANDIDATES)).candidates.map((c) => c.tool);
  const records = await Promise.all(names.map((name) => tenant.registry.getTool(name)));
  const missing = names.filter((_, i) => records[i] === undefined);
  if (named !== undefined && missing.length > 0) {
    throw new Failure("invalid-request", `Unknown tools: ${missing.join(", ")}.`, missing.map((name) => ({ path: "tools", message: `no tool named ${name}` })));
  }
  const found = records.flatMap((r) => (r === undefined ? [] : [r]));
  if (found.length === 0) throw new Failure("invalid-request", "No registered tool matches this task; register tools or name them in `tools`.");
  return { tools: found.map((r) => r.definition), hashes: new Map(found.map((r) => [r.definition.name, r.hash])), source: named === undefined ? "routing" : "request" };
}

/** Run a task end to end for a tenant, store it, and let the graph learn from it. */
export async function startRun(
  env: Env,
  tenantId: string,
  tenant: TenantApi,
  request: { task: string; tools?: string[] | undefined },
  settings: RunSettings,
  emit?: (event: RunEvent) => void,
): Promise<StoredRun> {
  const started = Date.now();
  const client = unwrap(await modelClientFor(env, tenantId, tenant));
  const { tools, hashes, source } = await chooseCandidates(tenant, request.task, request.tools);
  const overrides = await protocolOverrides(protocolStore(env, tenantId), tenant, tools, hashes);
  const names = tools.map((t) => t.name);
  const id = `run_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
  let outcome: RunOutcome;
  try {
    outcome = await runTask(
      { task: request.task, tools, overrides, maxAttempts: settings.maxAttempts, feedbackTokenBudget: settings.feedbackTokenBudget },
      {
        async chat(messages, purpose) {
          const answer = await client.chat({ messages, purpose, temperature: 0 });
          return { content: answer.content ?? "", usage: answer.usage, durationMs: answer.durationMs };
        },
        async execute(program, replay) {
          const attempt = await runAttemptInIsolate(env, { tenantId, program, tools: names, replay, limits: settings.limits });
          const { result } = attempt;
          return {
            ok: result.ok,
            ...(result.ok ? { answer: result.answer } : { error: result.error }),
            logs: result.logs,
            trace: attempt.trace,
            durationMs: attempt.isolateMs,
            firstCallMs: attempt.timing.engineReadyMs,
          };
        },
        ...(emit === undefined ? {} : { emit }),
        // Locally all of workerd is one thread, and a run's calls to its tenant object resolve
        // without a wait for I/O: a macrotask turn lets requests waiting on the socket in.
        yieldTurn: yieldToEventLoop,
      },
    );
  } catch (error) {
    // A run that could not finish (the model endpoint failed, …) is listed too, with what failed.
    await tenant.runs.save(id, request.task, "failed", JSON.stringify(unfinishedRun(id, request.task, names, source, started, error)));
    throw error;
  }
  const stored: StoredRun = {
    id,
    task: request.task,
    candidates: names,
    candidateSource: source,
    createdAt: new Date(started).toISOString(),
    ...outcome,
    timings: { totalMs: Date.now() - started },
  };
  await tenant.runs.save(id, request.task, stored.status, JSON.stringify(stored));
  const attributedFailures = outcome.attempts.flatMap((a) => (a.attributedTool === undefined ? [] : [a.attributedTool]));
  await tenant.learnFromRun(id, outcome.trajectory, evaluationFromRun(request.task, outcome), attributedFailures);
  return stored;
}
