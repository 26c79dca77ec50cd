import { DEFAULT_SIDE_EFFECT_SETTINGS, SideEffectSettings } from "../probing/side-effects";
import { DEFAULT_MAX_CONCURRENT_RUNS, MAX_CONCURRENT_RUNS_SETTING, RunSettings } from "./run-settings";
import { oneRow, run } from "./sql";

/**
 * A tenant's settings: one JSON value per name, kept in `tenant_meta` as `setting:<name>`. The
 * one owner of those rows; each other store reads and writes its own setting through it.
 */
export class TenantSettings {
  readonly #sql: SqlStorage;
  /**
   * Values already read this object lifetime, by name (undefined: unset). Routing reads two on
   * every answer; every write goes through `put`, which drops the name's value before writing.
   */
  readonly #read = new Map<string, string | undefined>();

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** The setting's JSON text, or undefined when unset. */
  get(name: string): string | undefined {
    if (this.#read.has(name)) return this.#read.get(name);
    const value = oneRow<{ value: string }>(this.#sql, "SELECT value FROM tenant_meta WHERE key = ?", `setting:${name}`)?.value;
    this.#read.set(name, value);
    return value;
  }

  /** Store a setting's JSON text; undefined clears it. */
  put(name: string, json: string | undefined): void {
    this.#read.delete(name);
    if (json === undefined) run(this.#sql, "DELETE FROM tenant_meta WHERE key = ?", `setting:${name}`);
    else run(this.#sql, "INSERT INTO tenant_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", `setting:${name}`, json);
  }

  /** Which non-GET operations probing and tool play may call for real or against a simulated copy. */
  sideEffects(): SideEffectSettings {
    const stored = this.get("side-effects");
    const parsed = stored === undefined ? undefined : SideEffectSettings.safeParse(JSON.parse(stored));
    return parsed?.success === true ? parsed.data : DEFAULT_SIDE_EFFECT_SETTINGS;
  }

  updateSideEffects(settings: SideEffectSettings): SideEffectSettings {
    this.put("side-effects", JSON.stringify(settings));
    return settings;
  }

  /** How many runs the tenant may have in flight (its setting, else the default). */
  runSettings(): RunSettings {
    const stored = Number(this.get(MAX_CONCURRENT_RUNS_SETTING));
    const parsed = RunSettings.safeParse({ maxConcurrentRuns: stored });
    return parsed.success ? parsed.data : { maxConcurrentRuns: DEFAULT_MAX_CONCURRENT_RUNS };
  }

  /** Store validated run settings (`RunSettings`, checked by the route). */
  updateRunSettings(settings: RunSettings): RunSettings {
    this.put(MAX_CONCURRENT_RUNS_SETTING, JSON.stringify(settings.maxConcurrentRuns));
    return settings;
  }
}
