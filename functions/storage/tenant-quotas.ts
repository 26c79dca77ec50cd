import { DEFAULT_QUOTAS, mergeQuotas, QuotaSettings, type QuotaSettingsUpdate, type QuotaFamily } from "../quotas/settings";
import { take, type Bucket } from "../quotas/token-bucket";
import { MODEL_WORK } from "../quotas/quota-family";
import type { FailureData } from "../common/failures";
import type { TenantSettings } from "./tenant-settings";

const SETTING = "quotas";
const DAY_MS = 86_400_000;

/**
 * A tenant's quotas, enforced inside its own Durable Object: one tenant's buckets and counters
 * live only in its object, so a tenant at its limit never slows another. Buckets are kept in
 * memory (an evicted object starts with full buckets, which errs on the tenant's side); model
 * tokens are counted from the runs and jobs themselves, so nothing extra is written per request.
 */
/** What quotas count, read from the stores that own it. */
export interface QuotaUsage {
  jobsInFlight(): number;
  modelTokensSince(sinceIso: string): number;
}

export class TenantQuotas {
  readonly #store: TenantSettings;
  readonly #usage: QuotaUsage;
  readonly #buckets = new Map<QuotaFamily, Bucket>();
  #settings: QuotaSettings | undefined;

  constructor(settings: TenantSettings, usage: QuotaUsage) {
    this.#store = settings;
    this.#usage = usage;
  }

  settings(): QuotaSettings {
    if (this.#settings === undefined) {
      const stored = this.#store.get(SETTING);
      const parsed = stored === undefined ? undefined : QuotaSettings.safeParse(JSON.parse(stored));
      this.#settings = parsed?.success === true ? parsed.data : DEFAULT_QUOTAS;
    }
    return this.#settings;
  }

  update(change: QuotaSettingsUpdate): QuotaSettings {
    const next = mergeQuotas(this.settings(), change);
    this.#store.put(SETTING, JSON.stringify(next));
    this.#settings = next;
    return next;
  }

  /** Admit one request of a family now, or the 429 problem to answer with. */
  admit(family: QuotaFamily, nowMs: number): FailureData | undefined {
    const settings = this.settings();
    const { bucket, result } = take(this.#buckets.get(family), settings.rates[family], nowMs);
    this.#buckets.set(family, bucket);
    if (!result.ok) {
      return {
        kind: "rate-limited",
        detail: `Rate limit for ${family} requests reached (${settings.rates[family].perSecond}/s).`,
        retryAfter: result.retryAfterSeconds,
      };
    }
    if (!MODEL_WORK.has(family)) return undefined;
    const used = this.modelTokensToday(nowMs);
    if (used >= settings.modelTokensPerDay) {
      const nextDay = Math.floor(nowMs / DAY_MS + 1) * DAY_MS;
      return {
        kind: "quota-exceeded",
        detail: `Model tokens for today are used up (${used} of ${settings.modelTokensPerDay}).`,
        retryAfter: (nextDay - nowMs) / 1000,
      };
    }
    if (family === "jobs") {
      const active = this.#usage.jobsInFlight();
      if (active >= settings.maxConcurrentJobs) {
        return {
          kind: "quota-exceeded",
          detail: `${active} jobs are queued or running (limit ${settings.maxConcurrentJobs}); retry when one has finished.`,
          retryAfter: 10,
        };
      }
    }
    return undefined;
  }

  /** Model tokens of runs started and jobs updated since UTC midnight. */
  modelTokensToday(nowMs: number): number {
    return this.#usage.modelTokensSince(new Date(Math.floor(nowMs / DAY_MS) * DAY_MS).toISOString());
  }
}
