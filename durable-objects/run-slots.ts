import { RpcTarget } from "cloudflare:workers";
import { z } from "zod";
import type { TenantSettings } from "./tenant-settings";

/** Runs one tenant may have in flight at once, unless its `maxConcurrentRuns` setting says otherwise. */
export const DEFAULT_MAX_CONCURRENT_RUNS = 4;
/** The most a tenant may set: each run holds model calls and a program isolate. */
export const MAX_MAX_CONCURRENT_RUNS = 100;
/** The tenant setting's name (a positive integer as JSON text). */
export const MAX_CONCURRENT_RUNS_SETTING = "maxConcurrentRuns";

/** A tenant's run settings, as `GET/PUT /v1/settings/runs` show and take them. */
export const RunSettings = z
  .object({
    maxConcurrentRuns: z
      .number()
      .int()
      .min(1)
      .max(MAX_MAX_CONCURRENT_RUNS)
      .describe(`Runs in flight at once; one more is refused with 429 and Retry-After (default ${DEFAULT_MAX_CONCURRENT_RUNS})`),
  })
  .strict();
export type RunSettings = z.infer<typeof RunSettings>;
/** A slot whose run never said it ended (its Worker died) frees itself after this long. */
const LEASE_MS = 10 * 60_000;
/** Suggested wait after a refusal: runs mostly end within seconds. */
const RETRY_AFTER_SECONDS = 5;

export type SlotAnswer = { ok: true } | { ok: false; limit: number; retryAfterSeconds: number };

/**
 * A tenant's runs in flight, so one tenant cannot fill the service with runs (each holds model
 * calls and a program isolate) and starve everyone else. Kept in the tenant's own object, in
 * memory: an evicted object forgets its leases, which errs on the tenant's side, and a lease
 * that is never released expires.
 */
export class RunSlots extends RpcTarget {
  readonly #settings: TenantSettings;
  readonly #leases = new Map<string, number>();

  constructor(settings: TenantSettings) {
    super();
    this.#settings = settings;
  }

  /** The tenant's limit: its setting, else the default. */
  limit(): number {
    return this.#settings.runSettings().maxConcurrentRuns;
  }

  /** Take a slot for run `key`, or say how long to wait. */
  acquire(key: string, nowMs: number): SlotAnswer {
    for (const [held, expires] of this.#leases) if (expires <= nowMs) this.#leases.delete(held);
    const limit = this.limit();
    if (this.#leases.size >= limit) return { ok: false, limit, retryAfterSeconds: RETRY_AFTER_SECONDS };
    this.#leases.set(key, nowMs + LEASE_MS);
    return { ok: true };
  }

  release(key: string): void {
    this.#leases.delete(key);
  }
}
