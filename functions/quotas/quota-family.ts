import type { QuotaFamily } from "./settings";

/*
 * Which family a request counts against is declared with its endpoint (http/quota-family.ts and
 * the endpoints in http/endpoints/); what a family means for the quota checks is said here.
 */

/** Families that start model work: they also need model tokens left today. */
export const MODEL_WORK: ReadonlySet<QuotaFamily> = new Set(["runs", "jobs"]);
