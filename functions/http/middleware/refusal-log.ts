import { PROBLEM_KINDS } from "../problem";
import type { Failure } from "../../common/failures";

/**
 * One structured info line per refused request (a bad key, a quota, the bad-key limit): the
 * client got a correct 401 or 429, so this is not an error and carries no stack. Never the key.
 */
export function logRefusal(request: { method: string; path: string }, refusal: Failure, tenantId?: string): Failure {
  console.info(
    JSON.stringify({
      level: "info",
      event: "request_refused",
      status: PROBLEM_KINDS[refusal.kind].status,
      problem: refusal.kind,
      method: request.method,
      path: request.path,
      ...(tenantId === undefined ? {} : { tenant: tenantId }),
    }),
  );
  return refusal;
}
