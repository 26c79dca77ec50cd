import { RpcTarget } from "cloudflare:workers";
import type { TenantSurface } from "../functions/tenant-api/tenant-api";

/**
 * One tenant's surface as an RPC target of its own, handed out by `TenantObject.admitted(…)` once
 * the caller's key and quota are checked, so that a call pipelined on it (`admitted(…)` and,
 * without waiting, `.routing.route(…)`) travels in the same round trip as the key check. It is a
 * view of the object, not a copy: each member reads the object's current store face or calls its
 * operation. It implements the declared surface (functions/tenant-api/tenant-api.ts), and
 * `MEMBERS_EXACT` proves it offers nothing more.
 */
export class TenantApiTarget extends RpcTarget implements TenantSurface {
  readonly #object: TenantSurface;

  constructor(object: TenantSurface) {
    super();
    this.#object = object;
  }

  get registry(): TenantSurface["registry"] {
    return this.#object.registry;
  }
  get settings(): TenantSurface["settings"] {
    return this.#object.settings;
  }
  get routing(): TenantSurface["routing"] {
    return this.#object.routing;
  }
  get runs(): TenantSurface["runs"] {
    return this.#object.runs;
  }
  get runSlots(): TenantSurface["runSlots"] {
    return this.#object.runSlots;
  }
  get jobs(): TenantSurface["jobs"] {
    return this.#object.jobs;
  }
  get imports(): TenantSurface["imports"] {
    return this.#object.imports;
  }
  get protocols(): TenantSurface["protocols"] {
    return this.#object.protocols;
  }
  get webhooks(): TenantSurface["webhooks"] {
    return this.#object.webhooks;
  }
  get quotas(): TenantSurface["quotas"] {
    return this.#object.quotas;
  }
  get idempotency(): TenantSurface["idempotency"] {
    return this.#object.idempotency;
  }
  get optimization(): TenantSurface["optimization"] {
    return this.#object.optimization;
  }
  get activity(): TenantSurface["activity"] {
    return this.#object.activity;
  }
  get observed(): TenantSurface["observed"] {
    return this.#object.observed;
  }

  applyFeedback(...args: Parameters<TenantSurface["applyFeedback"]>): ReturnType<TenantSurface["applyFeedback"]> {
    return this.#object.applyFeedback(...args);
  }

  applyFeedbackBatch(...args: Parameters<TenantSurface["applyFeedbackBatch"]>): ReturnType<TenantSurface["applyFeedbackBatch"]> {
    return this.#object.applyFeedbackBatch(...args);
  }

  storageBytes(): number {
    return this.#object.storageBytes();
  }
}

/** Compile-time proof that the target's RPC members are the declared surface's, no more. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const MEMBERS_EXACT: Same<Exclude<keyof TenantApiTarget, keyof RpcTarget>, keyof TenantSurface> = true;
