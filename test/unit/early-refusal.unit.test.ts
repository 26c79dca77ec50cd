import { describe, expect, it } from "vitest";
import { sendRefusedEarly } from "../helpers/early-refusal";

const reset = () => Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error("write ECONNRESET"), { code: "ECONNRESET" }) });

describe("sendRefusedEarly (a test helper)", () => {
  it("sends again after a connection reset and returns the answer", async () => {
    let calls = 0;
    const answer = await sendRefusedEarly(async () => {
      calls += 1;
      if (calls < 3) throw reset();
      return 413;
    });
    expect(answer).toBe(413);
    expect(calls).toBe(3);
  });

  it("throws any other error at once, and a reset after the last attempt", async () => {
    let calls = 0;
    await expect(
      sendRefusedEarly(async () => {
        calls += 1;
        throw new TypeError("fetch failed");
      }),
    ).rejects.toThrow("fetch failed");
    expect(calls).toBe(1);
    calls = 0;
    await expect(
      sendRefusedEarly(async () => {
        calls += 1;
        throw reset();
      }, 2),
    ).rejects.toThrow("fetch failed");
    expect(calls).toBe(2);
  });
});
