import { z } from "zod";

// A tenant's run settings: how many runs it may have in flight (kept by tenant-settings.ts,
// enforced by run-slots.ts).

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
