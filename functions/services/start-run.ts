import type { TenantApi } from "../tenant-api/tenant-api";
import type { RunEnd, RunStart, SlotRefused } from "../storage/run-slots";
import { Failure, unwrap } from "../common/failures";
import { modelCallOf, modelCallProblem } from "../llm/errors";
import { modelClientFromSetting } from "./model-client";
import { protocolStore } from "../storage/protocol-store";
import { protocolOverrides } from "./protocol-overrides";
import { evaluationFromRun } from "../chain/run-learning";
import { runAttemptInIsolate, type AttemptLimits } from "../sandbox/host/isolate-executor";
import { runTurns } from "./run-turns";
import { RunInterrupted, runTask, type RunError, type RunEvent, type RunOutcome } from "../chain/run-task";
import { ZERO_USAGE } from "../llm/usage";
import type { StoredRun } from "../chain/stored-run";

export interface RunSettings {
  maxAttempts: number;
  feedbackTokenBudget: number;
  limits: AttemptLimits;
}

/** What stopped a run, as its top-level error, naming the run. */
function stopReason(id: string, error: unknown): RunError {
  const model = modelCallOf(error);
  if (model !== undefined) return { code: `model:${model.kind}`, message: `Run ${id} stopped. The model endpoint failed: ${(error as Error).message}` };
  return { code: "internal", message: `Run ${id} stopped: the run failed on our side.` };
}

/**
 * A run that stopped before it ended (stored with every attempt it made) as the failure its
 * caller answers, naming the run: the model endpoint's problem (its status and `Retry-After`)
 * when the endpoint failed, else an internal one whose cause the error boundary logs.
 */
function runStopped(run: StoredRun, cause: unknown): Failure {
  const detail = run.error?.message ?? `Run ${run.id} stopped.`;
  const model = modelCallOf(cause);
  if (model !== undefined) return Failure.from(modelCallProblem(model, detail), cause);
  return Failure.from({ kind: "internal", detail }, cause);
}

/** The stored record of a run that stopped before it ended: what it had done so far, and why it stopped. */
function stoppedRun(base: Omit<StoredRun, keyof RunOutcome>, error: unknown): StoredRun {
  const partial = error instanceof RunInterrupted ? error.outcome : undefined;
  const cause = error instanceof RunInterrupted ? error.cause : error;
  return {
    ...base,
    status: "failed",
    attempts: partial?.attempts ?? [],
    modelCalls: partial?.modelCalls ?? [],
    usage: partial?.usage ?? { ...ZERO_USAGE },
    trajectory: partial?.trajectory ?? [],
    ...(partial?.finalProgram === undefined ? {} : { finalProgram: partial.finalProgram }),
    error: stopReason(base.id, cause),
  };
}

/** Where a run stands with its slot in the tenant's object. */
export type BegunRun = { refused: SlotRefused } | { run: RunLease };

/**
 * Set a run up in the tenant's object, one call (storage/run-slots.ts): its slot, tools,
 * protocols and model setting; `refused` when all of the tenant's run slots are taken.
 */
export async function beginRun(tenant: Pick<TenantApi, "runSlots">, request: { task: string; tools?: string[] | undefined }): Promise<BegunRun> {
  // The run's first phase: admitted, it waits its turn before any of its own work.
  await runTurns.take();
  const key = crypto.randomUUID();
  const start = await tenant.runSlots.begin(key, Date.now(), request.task, request.tools);
  return start.ok ? { run: new RunLease(tenant, key, start) } : { refused: start };
}

/** A begun run: what the object set up for it, and its slot until the run is finished or released. */
export class RunLease {
  readonly #tenant: Pick<TenantApi, "runSlots">;
  readonly #key: string;
  readonly start: Extract<RunStart, { ok: true }>;
  #held: boolean;

  constructor(tenant: Pick<TenantApi, "runSlots">, key: string, start: Extract<RunStart, { ok: true }>) {
    this.#tenant = tenant;
    this.#key = key;
    this.start = start;
    this.#held = start.slotTaken;
  }

  /** Store the run and let the graph learn from it; the slot is released in the same call. */
  async finish(end: RunEnd): Promise<void> {
    this.#held = false;
    await this.#tenant.runSlots.finish(this.#key, end);
  }

  /** Release the slot of a run that was not finished (a no-op once it was, or when none was taken). */
  async release(): Promise<void> {
    if (!this.#held) return;
    this.#held = false;
    await this.#tenant.runSlots.release(this.#key);
  }
}

/** Run a begun task end to end, store it, and let the graph learn from it (`finish`: one call). */
export async function startRun(
  env: Env,
  tenantId: string,
  lease: RunLease,
  request: { task: string },
  settings: RunSettings,
  emit?: (event: RunEvent) => void,
): Promise<StoredRun> {
  const started = Date.now();
  await runTurns.take();
  const client = unwrap(await modelClientFromSetting(env, tenantId, lease.start.modelSetting));
  const { tools: records, source, protocols } = unwrap(lease.start.tools);
  const tools = records.map((r) => r.definition);
  const overrides = await protocolOverrides(protocolStore(env, tenantId), protocols);
  const names = tools.map((t) => t.name);
  const id = `run_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
  const base = () => ({ id, task: request.task, candidates: names, candidateSource: source, createdAt: new Date(started).toISOString() });
  let outcome: RunOutcome;
  try {
    outcome = await runTask(
      { task: request.task, tools, overrides, maxAttempts: settings.maxAttempts, feedbackTokenBudget: settings.feedbackTokenBudget, runId: id },
      {
        async chat(messages, purpose) {
          const answer = await client.chat({ messages, purpose, temperature: 0 });
          return { content: answer.content ?? "", usage: answer.usage, durationMs: answer.durationMs, model: answer.model };
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
        // Locally all of workerd is one thread: between two run phases, requests waiting on the
        // socket are served (run-turns.ts).
        yieldTurn: () => runTurns.take(),
      },
    );
  } catch (error) {
    // A run that could not finish (the model endpoint failed, …) is listed too, with what it did and what failed.
    const run = stoppedRun({ ...base(), timings: { totalMs: Date.now() - started } }, error);
    await lease.finish({ id, task: request.task, status: run.status, recordJson: JSON.stringify(run) });
    throw runStopped(run, error instanceof RunInterrupted ? error.cause : error);
  }
  const stored: StoredRun = { ...base(), ...outcome, timings: { totalMs: Date.now() - started } };
  const attributedFailures = outcome.attempts.flatMap((a) => (a.attributedTool === undefined ? [] : [a.attributedTool]));
  await lease.finish({
    id,
    task: request.task,
    status: stored.status,
    recordJson: JSON.stringify(stored),
    learning: { trajectory: outcome.trajectory, evaluation: evaluationFromRun(request.task, outcome), attributedFailures },
  });
  // Stored: the response (the whole run as JSON) is the run's last phase.
  await runTurns.take();
  return stored;
}
