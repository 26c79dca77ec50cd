import { Failure } from "../../common/failures";

/**
 * Bad-key attempts are limited per client address. Deployed, the count lives in the Workers
 * rate-limiting binding `AUTH_FAILURES` (shared by the location's isolates); without the binding
 * a per-isolate window does the same job. Only failures are counted, so a client with a good key
 * never pays for this. Once an address is over the limit, every key it sends that turns out wrong
 * gets 429, not 401, until the window passes; a right key still works, for a tenant this isolate
 * has seen or not (behind a shared NAT the failures may be another client's). Keys carry 190
 * random bits: the limit tells a flood to back off; it is not what stops guessing.
 */

export const AUTH_FAILURE_LIMIT = 30;
export const AUTH_FAILURE_WINDOW_SECONDS = 60;

const blockedUntil = new Map<string, number>();
const localWindows = new Map<string, { start: number; count: number }>();
const MAX_TRACKED = 10_000;

/** The client's address as the edge reports it; one shared bucket when there is none (local). */
export function clientAddress(headers: Headers): string {
  return headers.get("cf-connecting-ip") ?? "unknown";
}

function blocked(address: string, now: number): Failure {
  const until = blockedUntil.get(address) ?? now;
  return new Failure(
    "rate-limited",
    `Too many failed authentication attempts from this address; try again in ${Math.ceil((until - now) / 1000)} s.`,
    undefined,
    (until - now) / 1000,
  );
}

/** The 429 to answer when the address is over its bad-key limit, else undefined. */
export function blockedAddress(address: string, now = Date.now()): Failure | undefined {
  const until = blockedUntil.get(address);
  if (until === undefined) return undefined;
  if (until > now) return blocked(address, now);
  blockedUntil.delete(address);
  return undefined;
}

function trim<K, V>(map: Map<K, V>): void {
  if (map.size >= MAX_TRACKED) map.clear();
}

async function overLimit(env: Env, address: string, now: number): Promise<boolean> {
  if (env.AUTH_FAILURES !== undefined) return !(await env.AUTH_FAILURES.limit({ key: address })).success;
  const window = localWindows.get(address);
  if (window === undefined || now - window.start >= AUTH_FAILURE_WINDOW_SECONDS * 1000) {
    trim(localWindows);
    localWindows.set(address, { start: now, count: 1 });
    return false;
  }
  window.count++;
  return window.count > AUTH_FAILURE_LIMIT;
}

/** Counts one failed attempt; returns the error to answer with (401, or 429 once over the limit). */
export async function authFailure(env: Env, address: string, unauthorized: Failure, now = Date.now()): Promise<Failure> {
  if (!(await overLimit(env, address, now))) return unauthorized;
  trim(blockedUntil);
  blockedUntil.set(address, now + AUTH_FAILURE_WINDOW_SECONDS * 1000);
  return blocked(address, now);
}
