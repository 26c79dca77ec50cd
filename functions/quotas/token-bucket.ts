import type { Rate } from "./settings";

/** A token bucket: full at `burst`, refilled at `perSecond`. Pure; the caller keeps the state. */
export interface Bucket {
  tokens: number;
  updatedMs: number;
}

export type Take = { ok: true } | { ok: false; retryAfterSeconds: number };

/** Take one token at `nowMs`, or say how long until one is there. */
export function take(bucket: Bucket | undefined, rate: Rate, nowMs: number): { bucket: Bucket; result: Take } {
  const start = bucket ?? { tokens: rate.burst, updatedMs: nowMs };
  const elapsed = Math.max(0, nowMs - start.updatedMs) / 1000;
  const tokens = Math.min(rate.burst, start.tokens + elapsed * rate.perSecond);
  if (tokens >= 1) return { bucket: { tokens: tokens - 1, updatedMs: nowMs }, result: { ok: true } };
  return { bucket: { tokens, updatedMs: nowMs }, result: { ok: false, retryAfterSeconds: (1 - tokens) / rate.perSecond } };
}
