import { DurableObject } from "cloudflare:workers";
import { failure, success, type Outcome } from "../functions/common/failures";
import { allRows, migrate, oneRow, run } from "../functions/storage/sql";

export interface TenantListing {
  id: string;
  name: string;
  createdAt: string;
}

const DIRECTORY_MIGRATIONS = ["CREATE TABLE IF NOT EXISTS directory_tenants (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL)"] as const;

/**
 * The list of tenants. One instance (named "directory"). Request handling asks it whether a
 * tenant exists only the first time an isolate sees that tenant (see functions/http/tenant-directory.ts),
 * so a known tenant's requests do not pass through it.
 */
export class DirectoryObject extends DurableObject<Env> {
  readonly #sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    migrate(this.#sql, DIRECTORY_MIGRATIONS);
  }

  /** Reserve a tenant id; fails when it is taken. */
  register(tenant: TenantListing): Outcome<TenantListing> {
    const written = run(
      this.#sql,
      "INSERT INTO directory_tenants (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
      tenant.id,
      tenant.name,
      tenant.createdAt,
    );
    return written === 0 ? failure("conflict", `tenant ${tenant.id} exists already`) : success(tenant);
  }

  /** Undo a reservation whose tenant object could not be created. */
  unregister(id: string): void {
    run(this.#sql, "DELETE FROM directory_tenants WHERE id = ?", id);
  }

  /** Whether a tenant exists: checked before any tenant object is touched, so strangers create no storage. */
  exists(id: string): boolean {
    return oneRow<{ found: number }>(this.#sql, "SELECT 1 AS found FROM directory_tenants WHERE id = ?", id) !== undefined;
  }

  list(): TenantListing[] {
    return allRows<{ id: string; name: string; created_at: string }>(
      this.#sql,
      "SELECT id, name, created_at FROM directory_tenants ORDER BY created_at, id",
    ).map((row) => ({ id: row.id, name: row.name, createdAt: row.created_at }));
  }
}
