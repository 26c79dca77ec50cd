import { z } from "zod";

/**
 * Per-tenant quotas, a tenant setting with defaults. Rates are token buckets per quota family
 * (requests per second, and the burst a client may spend at once); limits that span requests
 * (jobs in flight, model tokens per UTC day) are checked when work starts.
 */

export const QUOTA_FAMILIES = ["reads", "writes", "routing", "toolCalls", "runs", "jobs"] as const;
export type QuotaFamily = (typeof QUOTA_FAMILIES)[number];

export const Rate = z
  .object({
    perSecond: z.number().positive().max(10_000).describe("Sustained requests per second"),
    burst: z.number().int().min(1).max(100_000).describe("Requests allowed at once from a full bucket"),
  })
  .strict();
export type Rate = z.infer<typeof Rate>;

export const QuotaSettings = z
  .object({
    rates: z.record(z.enum(QUOTA_FAMILIES), Rate),
    maxConcurrentJobs: z.number().int().min(1).max(1_000).describe("Probe/optimise jobs queued or running at once"),
    modelTokensPerDay: z.number().int().min(0).max(1e12).describe("Model tokens (prompt + completion) per UTC day, runs and jobs together"),
  })
  .strict();
export type QuotaSettings = z.infer<typeof QuotaSettings>;

/** A partial update: any rate, any limit. */
export const QuotaSettingsUpdate = z
  .object({
    rates: z.partialRecord(z.enum(QUOTA_FAMILIES), Rate.partial().strict()).optional(),
    maxConcurrentJobs: QuotaSettings.shape.maxConcurrentJobs.optional(),
    modelTokensPerDay: QuotaSettings.shape.modelTokensPerDay.optional(),
  })
  .strict();
export type QuotaSettingsUpdate = z.infer<typeof QuotaSettingsUpdate>;

/**
 * Defaults: generous for one well-behaved client, tight enough that a loop cannot run away.
 * Routing and feedback are the chatbot hot path (no model call), so they get the most room.
 */
export const DEFAULT_QUOTAS: QuotaSettings = {
  rates: {
    reads: { perSecond: 50, burst: 200 },
    writes: { perSecond: 10, burst: 100 },
    routing: { perSecond: 200, burst: 1_000 },
    toolCalls: { perSecond: 10, burst: 50 },
    runs: { perSecond: 5, burst: 50 },
    jobs: { perSecond: 1, burst: 20 },
  },
  maxConcurrentJobs: 4,
  modelTokensPerDay: 5_000_000,
};

/** Settings after an update, every field validated. */
export function mergeQuotas(current: QuotaSettings, update: QuotaSettingsUpdate): QuotaSettings {
  const rates = { ...current.rates };
  for (const family of QUOTA_FAMILIES) {
    const change = update.rates?.[family];
    if (change !== undefined) rates[family] = Rate.parse({ ...rates[family], ...change });
  }
  return QuotaSettings.parse({
    rates,
    maxConcurrentJobs: update.maxConcurrentJobs ?? current.maxConcurrentJobs,
    modelTokensPerDay: update.modelTokensPerDay ?? current.modelTokensPerDay,
  });
}
