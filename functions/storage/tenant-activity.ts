import type { TenantJobs } from "./tenant-jobs";
import type { TenantRuns } from "./tenant-runs";

/** How a tool has been doing lately: its calls in recent runs, its last probe, its evaluator scores. */
export interface ToolActivity {
  calls: number;
  okCalls: number;
  /** The tool's item status in the newest probe job that had it: `probing`, `probed` or `failed`. */
  lastProbe: string | null;
  lastProbeError: string | null;
  /** Evaluator scores of its calls in recently evaluated runs, newest first. */
  recentScores: number[];
}

/** A run as lists show it. */
export interface RunSummary {
  id: string;
  createdAt: string;
  status: string;
  task: string;
  totalTokens: number | null;
  durationMs: number | null;
  attempts: number;
}

interface StoredRunFields {
  usage?: { totalTokens?: number };
  timings?: { totalMs?: number };
  attempts?: { trace?: { tool?: string; ok?: boolean }[] }[];
}

const RECENT_SCORES_PER_TOOL = 10;

/**
 * Read-only summaries over a tenant's runs, jobs and evaluations for the operator console.
 * Nothing here writes; each read is bounded by a limit on the newest rows.
 */
export class TenantActivity {
  readonly #runs: TenantRuns;
  readonly #jobs: TenantJobs;

  /** Reads go through the stores that own the rows. */
  constructor(runs: TenantRuns, jobs: TenantJobs) {
    this.#runs = runs;
    this.#jobs = jobs;
  }

  /** Per tool: calls in the newest `runLimit` runs, the newest probe outcome, recent evaluator scores. */
  tools(runLimit: number): Record<string, ToolActivity> {
    const activity: Record<string, ToolActivity> = {};
    const entry = (tool: string): ToolActivity => (activity[tool] ??= { calls: 0, okCalls: 0, lastProbe: null, lastProbeError: null, recentScores: [] });
    for (const { record } of this.#runs.newest(runLimit)) {
      const parsed = JSON.parse(record) as StoredRunFields;
      for (const attempt of parsed.attempts ?? []) {
        for (const call of attempt.trace ?? []) {
          if (typeof call.tool !== "string") continue;
          const tool = entry(call.tool);
          tool.calls += 1;
          if (call.ok === true) tool.okCalls += 1;
        }
      }
    }
    // Newest probe job item per tool: items come oldest first, so the last one wins.
    for (const probe of this.#jobs.probeItems()) {
      const tool = entry(probe.tool);
      tool.lastProbe = probe.status;
      const detail = JSON.parse(probe.detail) as { error?: unknown };
      tool.lastProbeError = probe.status === "failed" && typeof detail.error === "string" ? detail.error : null;
    }
    for (const row of this.#runs.newestEvaluations(runLimit)) {
      const steps = (JSON.parse(row.payload) as { steps?: { tool?: string }[] }).steps ?? [];
      const scores = JSON.parse(row.scores) as number[];
      steps.forEach((step, i) => {
        const score = scores[i];
        if (typeof step.tool !== "string" || score === undefined) return;
        const tool = entry(step.tool);
        if (tool.recentScores.length < RECENT_SCORES_PER_TOOL) tool.recentScores.push(score);
      });
    }
    return activity;
  }

  /** The newest runs with their token use and duration, read from the stored records. */
  runs(limit: number): RunSummary[] {
    return this.#runs.newest(limit).map((row) => {
      const parsed = JSON.parse(row.record) as StoredRunFields;
      return {
        id: row.id,
        createdAt: row.created_at,
        status: row.status,
        task: row.task,
        totalTokens: parsed.usage?.totalTokens ?? null,
        durationMs: parsed.timings?.totalMs ?? null,
        attempts: parsed.attempts?.length ?? 0,
      };
    });
  }
}
