import { describe, expect, it } from "vitest";
import { msLeftUntil, timeoutLeft } from "../../functions/sandbox/deadline";

/** An attempt's absolute deadline: a program that starts late gets only what is left of it. */
describe("absolute deadlines", () => {
  const deadlineAt = 1_764_158_400_000;

  it("counts what is left before the deadline, and nothing once it has passed", () => {
    expect(msLeftUntil(deadlineAt, deadlineAt - 750)).toBe(750);
    expect(msLeftUntil(deadlineAt, deadlineAt)).toBe(0);
    expect(msLeftUntil(deadlineAt, deadlineAt + 4_000)).toBe(0);
  });

  it("cuts a program's own timeout to what is left, never lengthens it", () => {
    // Sent with 5 s left, started 3 s later on a busy host: 2 s, not 5.
    expect(timeoutLeft(5_000, deadlineAt, deadlineAt - 2_000)).toBe(2_000);
    expect(timeoutLeft(1_000, deadlineAt, deadlineAt - 2_000)).toBe(1_000);
    expect(timeoutLeft(5_000, deadlineAt, deadlineAt + 1)).toBe(0);
  });

  it("leaves the timeout as it is without an absolute deadline", () => {
    expect(timeoutLeft(5_000, undefined, deadlineAt + 60_000)).toBe(5_000);
  });
});
