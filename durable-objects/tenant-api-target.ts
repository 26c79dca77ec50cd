import { RpcTarget } from "cloudflare:workers";
import type { TenantApi } from "../functions/tenant-api/tenant-api";
import { STORE_NAMES } from "../functions/tenant-api/store-faces";

/** The members of the tenant's surface: its stores (sub-objects) and the operations that span them. */
const OPERATIONS = ["applyFeedback", "applyFeedbackBatch", "storageBytes"] as const satisfies readonly (keyof TenantApi)[];

/** Compile-time proof that the two lists name every member of the surface, and nothing else. */
type Listed = (typeof STORE_NAMES)[number] | (typeof OPERATIONS)[number];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const MEMBERS_LISTED: Same<Listed, keyof TenantApi> = true;

/**
 * One tenant's surface as an RPC target of its own, handed out by `TenantObject.admitted(…)` once
 * the caller's key and quota are checked, so that a call pipelined on it (`admitted(…)` and,
 * without waiting, `.routing.route(…)`) travels in the same round trip as the key check. It is a
 * view of the object, not a copy: each member reads the object's current store or calls its
 * operation (generated below from the lists, so there is no hand-written forwarding to drift).
 */
export class TenantApiTarget extends RpcTarget {
  readonly #object: TenantApiLocal;

  constructor(object: TenantApiLocal) {
    super();
    this.#object = object;
  }

  static {
    for (const name of STORE_NAMES) {
      Object.defineProperty(TenantApiTarget.prototype, name, {
        get(this: TenantApiTarget) {
          return this.#object[name];
        },
      });
    }
    for (const name of OPERATIONS) {
      Object.defineProperty(TenantApiTarget.prototype, name, {
        value(this: TenantApiTarget, ...args: unknown[]) {
          return (this.#object[name] as (...a: unknown[]) => unknown).apply(this.#object, args);
        },
      });
    }
  }
}

/** The tenant object as its own code sees it: the surface's members, synchronous where they are. */
export type TenantApiLocal = { readonly [K in keyof TenantApi]: unknown };
