import type { TenantSettings } from "./tenant-settings";
import { allRows, run } from "./sql";

export interface OptimizationSettings {
  /** Queue a Play2Prompt job for a tool once runs have attributed this many failures to it. */
  autoOptimize: boolean;
  failureThreshold: number;
}

const DEFAULTS: OptimizationSettings = { autoOptimize: false, failureThreshold: 3 };
const SETTING = "optimization";

/**
 * Which tools runs misuse most: failures attributed to each tool are counted, and with
 * `autoOptimize` on (off by default) a tool reaching the threshold is queued for optimisation —
 * once: its count starts again, and no second job is queued while one is waiting or running.
 */
export class TenantOptimization {
  readonly #sql: SqlStorage;
  readonly #store: TenantSettings;
  readonly #pending: (tool: string) => boolean;

  /** `pending`: whether an optimisation job for the tool is queued or running (tenant-jobs.ts). */
  constructor(sql: SqlStorage, settings: TenantSettings, pending: (tool: string) => boolean) {
    this.#sql = sql;
    this.#store = settings;
    this.#pending = pending;
  }

  settings(): OptimizationSettings {
    const json = this.#store.get(SETTING);
    return json === undefined ? { ...DEFAULTS } : { ...DEFAULTS, ...(JSON.parse(json) as Partial<OptimizationSettings>) };
  }

  /** Applies the fields given; the others keep their current value. */
  update(change: Partial<OptimizationSettings>): OptimizationSettings {
    const settings = { ...this.settings(), ...change };
    this.#store.put(SETTING, JSON.stringify(settings));
    return settings;
  }

  /** Count attributed failures; returns the tools to queue for optimisation now. */
  recordFailures(tools: string[]): string[] {
    const stamp = new Date().toISOString();
    for (const tool of tools) {
      run(
        this.#sql,
        "INSERT INTO tool_failures (tool, count, last_at) VALUES (?, 1, ?) ON CONFLICT (tool) DO UPDATE SET count = count + 1, last_at = excluded.last_at",
        tool,
        stamp,
      );
    }
    const { autoOptimize, failureThreshold } = this.settings();
    if (!autoOptimize) return [];
    const due = allRows<{ tool: string }>(this.#sql, "SELECT tool FROM tool_failures WHERE count >= ?", failureThreshold).map((r) => r.tool);
    const queued: string[] = [];
    for (const tool of due) {
      run(this.#sql, "UPDATE tool_failures SET count = 0 WHERE tool = ?", tool);
      if (!this.#pending(tool)) queued.push(tool);
    }
    return queued;
  }

  /** Attributed failures per tool, most first. */
  failureCounts(): { tool: string; count: number; lastAt: string }[] {
    return allRows<{ tool: string; count: number; last_at: string }>(this.#sql, "SELECT tool, count, last_at FROM tool_failures ORDER BY count DESC, tool").map(
      (r) => ({
        tool: r.tool,
        count: r.count,
        lastAt: r.last_at,
      }),
    );
  }
}
