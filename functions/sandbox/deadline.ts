/**
 * An attempt's deadline as an absolute time (epoch ms). A relative timeout is counted from
 * whenever the program starts, so an attempt that starts late (its host busy with other programs)
 * would run a full timeout past its deadline; an absolute one stays where it was set.
 */

/** Milliseconds left before `deadlineAt` at `now` (both epoch ms); 0 once it has passed. */
export function msLeftUntil(deadlineAt: number, now: number): number {
  return Math.max(0, deadlineAt - now);
}

/**
 * The timeout a program starting at `now` gets: its own `timeoutMs`, cut to what is left before
 * `deadlineAt` when there is one. 0 means the deadline has passed: the program must not start.
 */
export function timeoutLeft(timeoutMs: number, deadlineAt: number | undefined, now: number): number {
  return deadlineAt === undefined ? timeoutMs : Math.min(timeoutMs, msLeftUntil(deadlineAt, now));
}
