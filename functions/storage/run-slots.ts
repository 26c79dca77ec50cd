import type { EvaluationRequest } from "../chain/evaluator";
import type { FailureData, Outcome } from "../common/failures";
import type { ToolDefinition } from "../tools/definition";
import type { CurrentProtocol } from "./tenant-protocols";
import type { ToolRecord } from "./tenant-registry";
import type { TenantSettings } from "./tenant-settings";

/** A slot whose run never said it ended (its Worker died) frees itself after this long. */
const LEASE_MS = 10 * 60_000;
/** Suggested wait after a refusal: runs mostly end within seconds. */
const RETRY_AFTER_SECONDS = 5;

export type SlotRefused = { ok: false; limit: number; retryAfterSeconds: number };
export type SlotAnswer = { ok: true } | SlotRefused;

/**
 * Routing's candidate set for a run: up to 12 tools, 6 of them expanded with their successors;
 * the budget is in tokens of what the prompt shows per tool (typed signature and description).
 */
const RUN_CANDIDATES = { seeds: 6, maxTools: 12, tokenBudget: 6_000 };

/** What a run needs from the tenant's other stores, read and written inside the object. */
export interface RunSources {
  /** The tenant's model setting (JSON text, the key sealed), opened by the Worker. */
  modelSetting(): string | undefined;
  /** Routing's candidate tools for a task (names, best first). */
  candidates(task: string, options: typeof RUN_CANDIDATES): string[];
  tool(name: string): ToolRecord | undefined;
  currentProtocols(tools: string[]): CurrentProtocol[];
  saveRun(id: string, task: string, status: string, recordJson: string): void;
  learnFromRun(runId: string, trajectory: string[], evaluation: EvaluationRequest | undefined, attributedFailures: string[]): Promise<void>;
}

/** A run's tools: the named ones or routing's, each with its current protocol when made for its current definition. */
export interface RunTools {
  tools: { definition: ToolDefinition; hash: string }[];
  source: "request" | "routing";
  protocols: CurrentProtocol[];
}

/** What `begin` answers: the slot refused, or taken (only when the tools are valid) with what the run needs. */
export type RunStart = SlotRefused | { ok: true; slotTaken: boolean; modelSetting: string | undefined; tools: Outcome<RunTools> };

/** What `finish` stores: the run's record, and what the graph learns from it (nothing for a run that did not finish). */
export interface RunEnd {
  id: string;
  task: string;
  status: string;
  recordJson: string;
  learning?: { trajectory: string[]; evaluation: EvaluationRequest | undefined; attributedFailures: string[] };
}

/**
 * A tenant's runs in flight, so one tenant cannot fill the service with runs (each holds model
 * calls and a program isolate) and starve everyone else. Kept in the tenant's own object, in
 * memory: an evicted object forgets its leases, which errs on the tenant's side, and a lease
 * that is never released expires. A run starts and ends here in one call each (`begin`,
 * `finish`): every call to the object costs the service serialisation on its one thread, so a
 * run does not gather its slot, settings, tools and protocols, or store, learn and release, in
 * separate round trips.
 */
export class RunSlots {
  readonly #settings: TenantSettings;
  readonly #sources: RunSources;
  readonly #leases = new Map<string, number>();

  constructor(settings: TenantSettings, sources: RunSources) {
    this.#settings = settings;
    this.#sources = sources;
  }

  /** The tenant's limit: its setting, else the default. */
  limit(): number {
    return this.#settings.runSettings().maxConcurrentRuns;
  }

  /** Take a slot for run `key`, or say how long to wait. */
  acquire(key: string, nowMs: number): SlotAnswer {
    const slot = this.#free(nowMs);
    if (slot.ok) this.#leases.set(key, nowMs + LEASE_MS);
    return slot;
  }

  release(key: string): void {
    this.#leases.delete(key);
  }

  /**
   * Set a run up in one call: a refusal when all slots are taken; else the run's tools (the ones
   * `named`, all of which must exist, or routing's candidates) with their current protocols, and
   * the model setting. The slot is taken only when the tools are valid: a refused run holds nothing.
   */
  begin(key: string, nowMs: number, task: string, named: string[] | undefined): RunStart {
    // A full tenant is refused first, whatever the tools, as when the slot was taken before them.
    const free = this.#free(nowMs);
    if (!free.ok) return free;
    const tools = this.#runTools(task, named);
    const slotTaken = tools.ok && this.acquire(key, nowMs).ok;
    return { ok: true, slotTaken, modelSetting: this.#sources.modelSetting(), tools };
  }

  /** End a run in one call: store its record, learn from it, and release its slot (whatever fails). */
  async finish(key: string, end: RunEnd): Promise<void> {
    try {
      this.#sources.saveRun(end.id, end.task, end.status, end.recordJson);
      const { learning } = end;
      if (learning !== undefined) await this.#sources.learnFromRun(end.id, learning.trajectory, learning.evaluation, learning.attributedFailures);
    } finally {
      this.release(key);
    }
  }

  /** Whether a slot is free now (expired leases dropped first). */
  #free(nowMs: number): SlotAnswer {
    for (const [held, expires] of this.#leases) if (expires <= nowMs) this.#leases.delete(held);
    const limit = this.limit();
    return this.#leases.size >= limit ? { ok: false, limit, retryAfterSeconds: RETRY_AFTER_SECONDS } : { ok: true };
  }

  #runTools(task: string, named: string[] | undefined): Outcome<RunTools> {
    const names = named ?? this.#sources.candidates(task, RUN_CANDIDATES);
    const records = names.map((name) => this.#sources.tool(name));
    const missing = names.filter((_, i) => records[i] === undefined);
    if (named !== undefined && missing.length > 0) {
      return refused(
        `Unknown tools: ${missing.join(", ")}.`,
        missing.map((name) => ({ path: "tools", message: `no tool named ${name}` })),
      );
    }
    const found = records.flatMap((r) => (r === undefined ? [] : [{ definition: r.definition, hash: r.hash }]));
    if (found.length === 0) return refused("No registered tool matches this task; register tools or name them in `tools`.");
    const hashes = new Map(found.map((t) => [t.definition.name, t.hash]));
    // Only protocols made for a tool's current definition count (a changed tool falls back to its registered documentation).
    const protocols = this.#sources.currentProtocols([...hashes.keys()]).filter((p) => hashes.get(p.tool) === p.hash);
    return { ok: true, value: { tools: found, source: named === undefined ? "routing" : "request", protocols } };
  }
}

function refused(detail: string, errors?: FailureData["errors"]): Outcome<never> {
  return { ok: false, problem: { kind: "invalid-request", detail, ...(errors === undefined ? {} : { errors }) } };
}
