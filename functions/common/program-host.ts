/**
 * The program host's HTTP surface as both sides name it (the service in tools/ and sandbox/, the
 * host in sandbox/program-host/): a wire contract, so it sits below both.
 */

/** The header that carries the secret shared by the service and its program host. */
export const PROGRAM_HOST_SECRET_HEADER = "x-atc-program-host-secret";

/** Where the program host answers name lookups (`?host=NAME` → `{ resolves, addresses? }`), locally. */
export const PROGRAM_HOST_RESOLVE_PATH = "/resolve";

/** The program host's answer to a lookup: whether the name resolves, or null when its resolver cannot tell. */
export interface ResolveAnswer {
  resolves: boolean | null;
  addresses?: string[];
}
