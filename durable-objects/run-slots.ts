import { RpcTarget } from "cloudflare:workers";
import type { TenantSettings } from "./tenant-settings";

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
