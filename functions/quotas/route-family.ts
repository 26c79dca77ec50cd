import type { RouteFamily } from "./settings";

/** Which quota a tenant request counts against, from its method and path. */
export function routeFamily(method: string, path: string): RouteFamily {
  if (method === "GET" || method === "HEAD" || method === "OPTIONS") return "reads";
  if (method === "POST") {
    if (/^\/v1\/tools\/[^/]+\/call$/.test(path)) return "toolCalls";
    if (path === "/v1/runs") return "runs";
    if (path === "/v1/probe" || /^\/v1\/tools\/[^/]+\/optimize$/.test(path)) return "jobs";
    if (path === "/v1/route" || path === "/v1/feedback" || path === "/v1/graph/trajectories") return "routing";
  }
  return "writes";
}

/** Families that start model work: they also need model tokens left today. */
export const MODEL_WORK: ReadonlySet<RouteFamily> = new Set(["runs", "jobs"]);
