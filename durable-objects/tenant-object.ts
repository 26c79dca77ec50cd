import { DurableObject } from "cloudflare:workers";
import { failure, success, type FailureData, type Outcome } from "../functions/failures";
import { generateApiKey, sha256Hex } from "../functions/tenants/api-keys";
import type { ToolDefinition } from "../functions/tools/definition";
import { allRows, migrate, oneRow, run } from "./sql";
import type { Evaluation, FeedbackResult, GraphSettings, StaticImportResult, ToolGraphSnapshot, Trajectory } from "../functions/routing/graph";
import { evaluateTrajectory } from "../functions/chain/evaluate-trajectory";
import type { EvaluationRequest } from "../functions/chain/evaluator";
import type { TenantApi } from "./tenant-api";
import { runJob } from "../functions/jobs/run-job";
import { TenantJobs, type JobKind, type JobRecord } from "./tenant-jobs";
import { TenantProtocols, type CurrentProtocol, type ProtocolVersion } from "./tenant-protocols";
import { TenantRouting, ToolGraphError, type RouteAnswer, type RouteOptions } from "./tenant-routing";
import type { LoadReport } from "./routing-store";
import type { RunCandidateSet } from "../functions/routing/signal-fusion";
import { TenantToolViews } from "./tenant-tool-views";
import { TenantOptimization, type OptimizationSettings } from "./tenant-optimization";
import { TenantRuns } from "./tenant-runs";
import { batchEvaluations, batchItemProblem } from "./tenant-feedback";
import { FeedbackBatchError } from "../functions/routing/graph/feedback-batch";
import type { FeedbackInput } from "../functions/chain/feedback";
import { RunSlots, type SlotAnswer } from "./run-slots";
import { TenantWebhooks, type SealedWebhookSecret } from "./tenant-webhooks";
import { TenantQuotas } from "./tenant-quotas";
import { DEFAULT_SIDE_EFFECT_SETTINGS, SideEffectSettings } from "../functions/probing/side-effects";
import { TenantIdempotency, type IdempotencyBegin, type StoredResponse } from "./tenant-idempotency";
import type { QuotaSettings, QuotaSettingsUpdate, RouteFamily } from "../functions/quotas/settings";
import { TenantActivity, type RunSummary, type ToolActivity } from "./tenant-activity";


import { TENANT_MIGRATIONS } from "./tenant-schema";

/** What lists show of an API key (never the key or its hash). */
export interface ApiKeySummary {
  id: string;
  prefix: string;
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export interface ToolRecord {
  definition: ToolDefinition;
  hash: string;
  source: string;
  createdAt: string;
  updatedAt: string;
}

export interface ToolUpsert {
  definition: ToolDefinition;
  hash: string;
}

export interface UpsertReport {
  created: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
}

export type CredentialScope = { kind: "tool"; value: string } | { kind: "server"; value: string };

/** A stored credential as the API may show it: where it applies and a masked hint. */
export interface CredentialSummary {
  id: string;
  scope: CredentialScope;
  scheme: "apiKey" | "bearer";
  in: "header" | "query";
  name: string | null;
  hint: string;
  createdAt: string;
}

/** A credential with its sealed secret; only the Worker's call path decrypts it. */
export interface SealedCredential extends CredentialSummary {
  ciphertext: string;
  iv: string;
}

interface KeyRow {
  id: string;
  prefix: string;
  label: string | null;
  created_at: string;
  revoked_at: string | null;
}

interface ToolRow {
  name: string;
  definition: string;
  hash: string;
  source: string;
  created_at: string;
  updated_at: string;
}

interface CredentialRow {
  id: string;
  scope_kind: "tool" | "server";
  scope_value: string;
  scheme: "apiKey" | "bearer";
  location: "header" | "query";
  param_name: string | null;
  ciphertext: string;
  iv: string;
  hint: string;
  created_at: string;
}

const now = (): string => new Date().toISOString();

function toolFromRow(row: ToolRow): ToolRecord {
  return {
    definition: JSON.parse(row.definition) as ToolDefinition,
    hash: row.hash,
    source: row.source,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function credentialFromRow(row: CredentialRow): SealedCredential {
  return {
    id: row.id,
    scope: { kind: row.scope_kind, value: row.scope_value },
    scheme: row.scheme,
    in: row.location,
    name: row.param_name,
    hint: row.hint,
    createdAt: row.created_at,
    ciphertext: row.ciphertext,
    iv: row.iv,
  };
}

function withoutSecret({ ciphertext: _c, iv: _i, ...summary }: SealedCredential): CredentialSummary {
  return summary;
}

/**
 * All state of one tenant: keys, tools, credentials (and, later, graph, runs and jobs). One
 * object per tenant serialises writes, so nothing is lost to concurrent requests.
 */
export class TenantObject extends DurableObject<Env> {
  readonly #sql: SqlStorage;
  /** ToolNet graph and retrieval index; see tenant-routing.ts. */
  readonly routing: TenantRouting;
  readonly jobs: TenantJobs;
  readonly protocols: TenantProtocols;
  readonly webhooks: TenantWebhooks;
  readonly #runs: TenantRuns;
  readonly #runSlots: RunSlots;
  readonly #optimization: TenantOptimization;
  readonly #quotas: TenantQuotas;
  readonly #idempotency: TenantIdempotency;
  readonly #activity: TenantActivity;
  readonly #toolViews: TenantToolViews;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    // Synchronous SQL in the constructor runs before any request reaches the object.
    migrate(this.#sql, TENANT_MIGRATIONS);
    this.protocols = new TenantProtocols(this.#sql);
    this.#toolViews = new TenantToolViews(this.#sql);
    this.routing = new TenantRouting(
      this.#sql,
      () => new Map(this.listTools().map((t) => [t.definition.name, t.definition])),
      () => this.protocols.descriptions(),
      (tool, shown, description) => this.#toolViews.viewsOf(tool, shown, description),
    );
    this.jobs = new TenantJobs(this.#sql);
    this.webhooks = new TenantWebhooks(this.#sql);
    this.#runs = new TenantRuns(this.#sql);
    this.#runSlots = new RunSlots(this.#sql);
    this.#optimization = new TenantOptimization(this.#sql);
    this.#quotas = new TenantQuotas(this.#sql);
    this.#idempotency = new TenantIdempotency(this.#sql);
    this.#activity = new TenantActivity(this.#sql);
  }

  #tenantId(): string | undefined {
    return oneRow<{ value: string }>(this.#sql, "SELECT value FROM tenant_meta WHERE key = 'id'")?.value;
  }

  /** Create the tenant in this object; fails when it exists already. */
  initialize(tenantId: string, name: string): Outcome<{ id: string; name: string; createdAt: string }> {
    if (this.#tenantId() !== undefined) return failure("conflict", `tenant ${tenantId} exists already`);
    const createdAt = now();
    this.ctx.storage.transactionSync(() => {
      run(this.#sql, "INSERT INTO tenant_meta (key, value) VALUES ('id', ?), ('name', ?), ('created_at', ?)", tenantId, name, createdAt);
    });
    return success({ id: tenantId, name, createdAt });
  }

  /** True when a non-revoked key with this hash belongs to this tenant. */
  authenticate(keyHash: string): boolean {
    if (this.#tenantId() === undefined) return false;
    const row = oneRow<{ id: string }>(
      this.#sql,
      "SELECT id FROM tenant_api_keys WHERE key_hash = ? AND revoked_at IS NULL",
      keyHash,
    );
    return row !== undefined;
  }

  /**
   * Authenticate and admit one request in a single call: the key check, then the tenant's quota
   * for the request's route family (rate, and for model work: tokens today, jobs in flight).
   */
  admit(keyHash: string, family: RouteFamily, nowMs: number): { ok: true } | { ok: false; problem: FailureData | null } {
    if (!this.authenticate(keyHash)) return { ok: false, problem: null };
    const refused = this.#quotas.admit(family, nowMs);
    return refused === undefined ? { ok: true } : { ok: false, problem: refused };
  }

  quotaSettings(): QuotaSettings {
    return this.#quotas.settings();
  }

  updateQuotaSettings(change: QuotaSettingsUpdate): QuotaSettings {
    return this.#quotas.update(change);
  }

  modelTokensToday(nowMs: number): number {
    return this.#quotas.modelTokensToday(nowMs);
  }

  /** Which non-GET operations probing and tool play may call for real or against a simulated copy. */
  sideEffectSettings(): SideEffectSettings {
    const stored = oneRow<{ value: string }>(this.#sql, "SELECT value FROM tenant_meta WHERE key = 'setting:side-effects'")?.value;
    const parsed = stored === undefined ? undefined : SideEffectSettings.safeParse(JSON.parse(stored));
    return parsed?.success === true ? parsed.data : DEFAULT_SIDE_EFFECT_SETTINGS;
  }

  updateSideEffectSettings(settings: SideEffectSettings): SideEffectSettings {
    run(this.#sql, "INSERT INTO tenant_meta (key, value) VALUES ('setting:side-effects', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", JSON.stringify(settings));
    return settings;
  }

  beginIdempotent(key: string, fingerprint: string, nowMs: number): IdempotencyBegin {
    return this.#idempotency.begin(key, fingerprint, nowMs);
  }

  completeIdempotent(key: string, response: StoredResponse): void {
    this.#idempotency.complete(key, response);
  }

  abandonIdempotent(key: string): void {
    this.#idempotency.abandon(key);
  }

  /** Issue a new API key; the clear key is returned once and never stored. */
  async createKey(label: string | null): Promise<Outcome<ApiKeySummary & { key: string }>> {
    const tenantId = this.#tenantId();
    if (tenantId === undefined) return failure("not-found", "no such tenant");
    const { key, prefix } = generateApiKey(tenantId);
    const keyHash = await sha256Hex(key);
    const id = `key_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const createdAt = now();
    run(
      this.#sql,
      "INSERT INTO tenant_api_keys (id, prefix, key_hash, label, created_at) VALUES (?, ?, ?, ?, ?)",
      id,
      prefix,
      keyHash,
      label,
      createdAt,
    );
    return success({ id, prefix, label, createdAt, revokedAt: null, key });
  }

  listKeys(): ApiKeySummary[] {
    return allRows<KeyRow>(this.#sql, "SELECT id, prefix, label, created_at, revoked_at FROM tenant_api_keys ORDER BY created_at, id").map(
      (row) => ({ id: row.id, prefix: row.prefix, label: row.label, createdAt: row.created_at, revokedAt: row.revoked_at }),
    );
  }

  /** Revoke a key; effective for the very next request, since every request asks this object. */
  revokeKey(id: string): Outcome<ApiKeySummary> {
    const written = run(this.#sql, "UPDATE tenant_api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", now(), id);
    const row = oneRow<KeyRow>(this.#sql, "SELECT id, prefix, label, created_at, revoked_at FROM tenant_api_keys WHERE id = ?", id);
    if (row === undefined) return failure("not-found", `no API key ${id}`);
    if (written === 0 && row.revoked_at === null) return failure("internal", "revocation did not apply");
    return success({ id: row.id, prefix: row.prefix, label: row.label, createdAt: row.created_at, revokedAt: row.revoked_at });
  }

  info(): { id: string; name: string; createdAt: string; toolCount: number } | undefined {
    const meta = new Map(allRows<{ key: string; value: string }>(this.#sql, "SELECT key, value FROM tenant_meta").map((r) => [r.key, r.value]));
    const id = meta.get("id");
    if (id === undefined) return undefined;
    const toolCount = oneRow<{ n: number }>(this.#sql, "SELECT COUNT(*) AS n FROM tenant_tools")?.n ?? 0;
    return { id, name: meta.get("name") ?? id, createdAt: meta.get("created_at") ?? "", toolCount };
  }

  /**
   * Create or update tools in one transaction. A tool whose hash is unchanged is not touched, so
   * re-registering the same document changes nothing. With `prune`, tools of the same source
   * that the new set no longer has are removed.
   */
  upsertTools(tools: ToolUpsert[], source: string, prune: boolean): UpsertReport {
    const report: UpsertReport = { created: [], updated: [], unchanged: [], removed: [] };
    const stamp = now();
    this.ctx.storage.transactionSync(() => {
      for (const { definition, hash } of tools) {
        const existing = oneRow<{ hash: string }>(this.#sql, "SELECT hash FROM tenant_tools WHERE name = ?", definition.name);
        if (existing === undefined) {
          run(
            this.#sql,
            "INSERT INTO tenant_tools (name, definition, hash, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
            definition.name,
            JSON.stringify(definition),
            hash,
            source,
            stamp,
            stamp,
          );
          report.created.push(definition.name);
        } else if (existing.hash !== hash) {
          run(
            this.#sql,
            "UPDATE tenant_tools SET definition = ?, hash = ?, source = ?, updated_at = ? WHERE name = ?",
            JSON.stringify(definition),
            hash,
            source,
            stamp,
            definition.name,
          );
          report.updated.push(definition.name);
        } else {
          report.unchanged.push(definition.name);
        }
      }
      const changed = new Set([...report.created, ...report.updated]);
      if (prune) {
        const keep = new Set(tools.map((t) => t.definition.name));
        for (const { name } of allRows<{ name: string }>(this.#sql, "SELECT name FROM tenant_tools WHERE source = ?", source)) {
          if (!keep.has(name)) {
            run(this.#sql, "DELETE FROM tenant_tools WHERE name = ?", name);
            report.removed.push(name);
          }
        }
      }
      this.routing.toolsChanged(tools.filter((t) => changed.has(t.definition.name)).map((t) => t.definition), report.removed);
      this.#toolViews.forget(report.removed, true);
      for (const tool of tools) if (changed.has(tool.definition.name)) this.#toolViews.store(tool.definition, tool.hash);
    });
    return report;
  }

  listTools(): ToolRecord[] {
    return allRows<ToolRow>(this.#sql, "SELECT * FROM tenant_tools ORDER BY name").map(toolFromRow);
  }

  getTool(name: string): ToolRecord | undefined {
    const row = oneRow<ToolRow>(this.#sql, "SELECT * FROM tenant_tools WHERE name = ?", name);
    return row === undefined ? undefined : toolFromRow(row);
  }

  deleteTool(name: string): boolean {
    const deleted = run(this.#sql, "DELETE FROM tenant_tools WHERE name = ?", name) > 0;
    if (deleted) {
      this.routing.toolsChanged([], [name]);
      this.#toolViews.forget([name], true);
    }
    return deleted;
  }

  /** A tenant setting (JSON), or undefined when unset. */
  getSetting(name: string): string | undefined {
    return oneRow<{ value: string }>(this.#sql, "SELECT value FROM tenant_meta WHERE key = ?", `setting:${name}`)?.value;
  }

  /** Store a tenant setting (JSON text); undefined clears it. */
  putSetting(name: string, json: string | undefined): void {
    if (json === undefined) run(this.#sql, "DELETE FROM tenant_meta WHERE key = ?", `setting:${name}`);
    else run(this.#sql, "INSERT INTO tenant_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", `setting:${name}`, json);
  }

  /** Store (or replace) the credential for a scope; the secret arrives sealed by the Worker. */
  putCredential(credential: SealedCredential): CredentialSummary {
    this.ctx.storage.transactionSync(() => {
      run(this.#sql, "DELETE FROM tenant_credentials WHERE scope_kind = ? AND scope_value = ?", credential.scope.kind, credential.scope.value);
      run(
        this.#sql,
        `INSERT INTO tenant_credentials (id, scope_kind, scope_value, scheme, location, param_name, ciphertext, iv, hint, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        credential.id,
        credential.scope.kind,
        credential.scope.value,
        credential.scheme,
        credential.in,
        credential.name,
        credential.ciphertext,
        credential.iv,
        credential.hint,
        credential.createdAt,
      );
    });
    return withoutSecret(credential);
  }

  listCredentials(): CredentialSummary[] {
    return allRows<CredentialRow>(this.#sql, "SELECT * FROM tenant_credentials ORDER BY created_at, id").map((row) =>
      withoutSecret(credentialFromRow(row)),
    );
  }

  deleteCredential(id: string): boolean {
    return run(this.#sql, "DELETE FROM tenant_credentials WHERE id = ?", id) > 0;
  }

  /**
   * The tool and the credential that applies to it: a tool-scoped one wins over a server-scoped
   * one; among servers, the longest matching base URL wins.
   */
  toolForCall(name: string): { tool: ToolRecord; credential: SealedCredential | undefined } | undefined {
    const tool = this.getTool(name);
    if (tool === undefined) return undefined;
    const byTool = oneRow<CredentialRow>(this.#sql, "SELECT * FROM tenant_credentials WHERE scope_kind = 'tool' AND scope_value = ?", name);
    if (byTool !== undefined) return { tool, credential: credentialFromRow(byTool) };
    const servers = allRows<CredentialRow>(this.#sql, "SELECT * FROM tenant_credentials WHERE scope_kind = 'server'")
      .filter((row) => tool.definition.serverUrl === row.scope_value || tool.definition.serverUrl.startsWith(`${row.scope_value}/`))
      .sort((a, b) => b.scope_value.length - a.scope_value.length);
    const server = servers[0];
    return { tool, credential: server === undefined ? undefined : credentialFromRow(server) };
  }

  // Runs, the evaluator queue, background jobs, protocols and webhooks (see their modules).

  /** Take one of the tenant's concurrent-run slots (see run-slots.ts). */
  acquireRunSlot(key: string): SlotAnswer {
    return this.#runSlots.acquire(key, Date.now());
  }

  releaseRunSlot(key: string): void {
    this.#runSlots.release(key);
  }

  saveRun(id: string, task: string, status: string, recordJson: string): void {
    this.#runs.save(id, task, status, recordJson);
  }

  getRun(id: string): string | undefined {
    return this.#runs.get(id);
  }

  listRuns(limit: number): { id: string; createdAt: string; status: string; task: string }[] {
    return this.#runs.list(limit);
  }

  /** Runs with token use and duration, for the console's list. */
  runSummaries(limit: number): RunSummary[] {
    return this.#activity.runs(limit);
  }

  /** Per tool: recent call success, newest probe outcome, recent evaluator scores (console). */
  toolActivity(runLimit: number): Record<string, ToolActivity> {
    return this.#activity.tools(runLimit);
  }

  /**
   * A finished run teaches the graph: its tool sequence is a trajectory (static counts, eq. 5),
   * and it is queued for the evaluator, whose scores arrive later through the alarm (eq. 6–8).
   */
  async learnFromRun(runId: string, trajectory: string[], evaluation: EvaluationRequest | undefined, attributedFailures: string[] = []): Promise<void> {
    if (trajectory.length > 0) {
      graphOutcome(() => this.routing.importTrajectories([{ id: `run:${runId}`, tools: trajectory, task: evaluation?.task }], "skip"));
    }
    const toOptimize = this.#optimization.recordFailures(attributedFailures);
    for (const tool of toOptimize) {
      this.jobs.create("optimize", { tool, settings: {}, reason: "auto: failures attributed in recent runs" }, null);
    }
    if (toOptimize.length > 0) await this.#armAlarm();
    if (evaluation !== undefined && evaluation.steps.length > 0) {
      this.#runs.enqueueEvaluation(runId, evaluation);
      await this.#armAlarm();
    }
  }

  evaluationStatus(runId: string): ReturnType<TenantRuns["evaluationStatus"]> {
    return this.#runs.evaluationStatus(runId);
  }

  optimizationSettings(): OptimizationSettings {
    return this.#optimization.settings();
  }

  updateOptimizationSettings(change: Partial<OptimizationSettings>): OptimizationSettings {
    return this.#optimization.update(change);
  }

  /** Create (or find, by dedupe key) a background job and make sure the alarm will run it. */
  async createJob(kind: JobKind, request: unknown, dedupeKey: string | null): Promise<{ id: string; created: boolean }> {
    const job = this.jobs.create(kind, request, dedupeKey);
    await this.#armAlarm();
    return job;
  }

  getJob(id: string): JobRecord | undefined {
    return this.jobs.get(id);
  }

  waitForJob(id: string, waitMs: number): Promise<JobRecord | undefined> {
    return this.jobs.waitFor(id, waitMs);
  }

  listJobs(limit: number): ReturnType<TenantJobs["list"]> {
    return this.jobs.list(limit);
  }

  currentProtocols(tools: string[]): CurrentProtocol[] {
    return this.protocols.currentMany(tools);
  }

  protocolVersions(tool: string): ProtocolVersion[] {
    return this.protocols.versions(tool);
  }

  pinProtocol(tool: string, version: number | undefined): CurrentProtocol | undefined {
    return this.protocols.pin(tool, version);
  }

  recordProtocol(entry: Omit<ProtocolVersion, "version" | "createdAt">): ProtocolVersion {
    const version = this.protocols.record(entry);
    this.routing.protocolChanged(entry.tool);
    return version;
  }

  addWebhookSecret(secret: Omit<SealedWebhookSecret, "expiresAt">, previousValidUntil: number): void {
    this.webhooks.addSecret(secret, previousValidUntil);
  }

  webhookSecrets(): SealedWebhookSecret[] {
    return this.webhooks.validSecrets(Date.now());
  }

  listWebhookSecrets(): ReturnType<TenantWebhooks["listSecrets"]> {
    return this.webhooks.listSecrets();
  }

  claimDelivery(id: string): ReturnType<TenantWebhooks["claimDelivery"]> {
    return this.webhooks.claimDelivery(id);
  }

  completeDelivery(id: string, jobId: string | null, outcome: string): void {
    this.webhooks.completeDelivery(id, jobId, outcome);
  }

  failDelivery(id: string): void {
    this.webhooks.failDelivery(id);
  }

  async #armAlarm(): Promise<void> {
    const times = [this.#runs.nextEvaluationDue(), this.jobs.nextDue()].filter((t): t is number => t !== null);
    if (times.length === 0) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(Math.min(...times));
  }

  /** One alarm drains both queues of due work; both are idempotent, as alarms are at-least-once. */
  override async alarm(): Promise<void> {
    const tenantId = this.#tenantId() ?? "";
    const self = this as unknown as TenantApi;
    await this.#runs.processEvaluations(async (request) => {
      const scores = await evaluateTrajectory(this.env, tenantId, self, request);
      graphOutcome(() => this.routing.applyScores({ tools: request.steps.map((s) => s.tool), scores }));
      return scores;
    });
    for (const job of this.jobs.due(Date.now())) {
      this.jobs.start(job.id);
      try {
        await runJob(this.env, tenantId, self, this.jobs, job.id);
      } catch (error) {
        this.jobs.retryLater(job.id, job.attempts + 1, error instanceof Error ? error.message : String(error));
      }
    }
    await this.#armAlarm();
  }

  // ToolNet: thin RPC delegates to TenantRouting; graph errors become problems, not throws.

  /** Candidate next tools for a task after `previous` (or from the start). */
  route(task: string, previous: string | null, k: number, query?: { model: string; vector: number[] }, options: RouteOptions = {}): Outcome<RouteAnswer> {
    const answer = this.routing.route(task, previous, k, query, options);
    if ("unknownPrevious" in answer) return failure("not-found", `No tool named ${answer.unknownPrevious}.`);
    if ("budgetTooSmall" in answer) return failure("invalid-request", answer.budgetTooSmall);
    return success(answer);
  }

  /** Candidate tools for a run (retrieval, similar earlier tasks, and their successors). */
  runCandidates(task: string, options: { seeds: number; maxTools: number; tokenBudget: number }): RunCandidateSet {
    return this.routing.candidates(task, options);
  }

  toolsNeedingEmbeddings(model: string): { name: string; hash: string }[] {
    return this.routing.toolsNeedingEmbeddings(model);
  }

  storeEmbeddings(model: string, entries: { tool: string; hash: string; vector: number[] }[]): void {
    this.routing.storeEmbeddings(model, entries);
  }

  importTrajectories(trajectories: (Trajectory & { task?: string | undefined })[], unknownTools: "error" | "skip"): Outcome<StaticImportResult> {
    return graphOutcome(() => this.routing.importTrajectories(trajectories, unknownTools));
  }

  applyScores(evaluation: Evaluation): Outcome<FeedbackResult> {
    return graphOutcome(() => this.routing.applyScores(evaluation));
  }

  /** Batched feedback: every item resolved and applied in one transaction, or none (tenant-feedback.ts). */
  applyScoresBatch(items: FeedbackInput[]): Outcome<FeedbackResult[]> {
    const resolved = batchEvaluations(items, (id) => this.#runs.get(id));
    if ("problem" in resolved) return { ok: false, problem: resolved.problem };
    try {
      return success(this.ctx.storage.transactionSync(() => [...this.routing.applyScoresBatch(resolved.evaluations)]));
    } catch (error) {
      if (error instanceof FeedbackBatchError) return { ok: false, problem: batchItemProblem(error) };
      throw error;
    }
  }

  graphSettings(): GraphSettings {
    return this.routing.settings();
  }

  updateGraphSettings(partial: Partial<GraphSettings>): Outcome<GraphSettings> {
    return graphOutcome(() => this.routing.updateSettings(partial));
  }

  graphEdges(): ReturnType<TenantRouting["weightedEdges"]> {
    return this.routing.weightedEdges();
  }

  graphSnapshot(): ToolGraphSnapshot {
    return this.routing.snapshot();
  }

  replaceGraph(snapshot: unknown): Outcome<{ missingTools: string[] }> {
    return graphOutcome(() => this.routing.replaceWith(snapshot));
  }

  /** Drop in-memory state as an eviction would; the next read reloads from SQLite (see TenantRouting.evictMemory). */
  simulateEviction(options: { olderFormats?: boolean } = {}): void {
    this.routing.evictMemory(options);
  }

  /** How the routing state was loaded: stored or rebuilt (tests and benchmarks). */
  routingLoadReport(): LoadReport {
    return this.routing.loadReport();
  }

  /** Bytes of this object's SQLite database (what counts against the per-object storage limit). */
  storageBytes(): number {
    return this.ctx.storage.sql.databaseSize;
  }
}

/** Run a graph operation; its validation errors become a 400 problem with the graph's message. */
function graphOutcome<T>(operation: () => T): Outcome<T> {
  try {
    return success(operation());
  } catch (error) {
    if (error instanceof ToolGraphError) return failure("invalid-request", error.message);
    throw error;
  }
}
