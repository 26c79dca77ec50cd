import type { RouteFamily } from "./settings";

/*
 * Which family a request counts against is declared with its route (http/quota-family.ts and
 * the routes in http/routes/); what a family means for the quota checks is said here.
 */

/** Families that start model work: they also need model tokens left today. */
export const MODEL_WORK: ReadonlySet<RouteFamily> = new Set(["runs", "jobs"]);
