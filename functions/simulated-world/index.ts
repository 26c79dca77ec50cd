/**
 * The simulated tool world: a deterministic stand-in for the REST APIs of the benchmarks (RestBench
 * TMDB, AutoTools), served from their documents, because no real API is reachable from here.
 *
 * Rules, in the order a request meets them:
 * - routing: longest mount prefix, then method + path template, literal segments beating
 *   parameters (`/movie/popular` before `/movie/{movie_id}`); none → 404, other method → 405;
 * - parameters: a missing required query parameter, or a query / non-identifier path value that
 *   breaks a simple `type` or `enum`, → 400 naming it;
 * - identifiers: a path parameter named `id`, `*_id` or `*Id` must hold a value the mount has
 *   seeded or handed out, else TMDB's 404 (status_code 34);
 * - body: the documented / recorded example, else openapi-sampler data with identifiers varied by
 *   the request; the top-level `id` echoes the requested identifier when the path ends at one;
 * - handing out: every scalar under an `id` / `*_id` / `*Id` key of a returned body is accepted
 *   from then on, per mount, for the world's lifetime.
 * `GET /__world` lists mounts, operations and skipped source entries.
 */
export { mountAutotools } from "./autotools-mount";
export { mountOpenApi } from "./openapi-mount";
export { isIdentifierName } from "./identifiers";
export { CONTROL_PATH, SimulatedWorld, type MountSummary, type OperationSummary } from "./world";
export type {
  MountOptions,
  OperationBody,
  ParameterIn,
  SeedRule,
  SkippedOperation,
  WorldMount,
  WorldOperation,
  WorldParameter,
} from "./types";
