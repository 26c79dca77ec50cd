import { describe, expect, it, vi } from "vitest";
import * as encoder from "../../functions/text/o200k-encoder";
import { countTokens } from "../../functions/text/token-count";

// The real encoder, watched: building it costs hundreds of milliseconds and ≈ 10 MiB of heap, which
// an isolate must not pay at startup, only at its first count, and only once.
vi.mock("../../functions/text/o200k-encoder", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../functions/text/o200k-encoder")>();
  return { ...actual, o200kPieceCounter: vi.fn(actual.o200kPieceCounter) };
});

describe("the o200k_base encoder is built on the first count, once", () => {
  it("is not built when the module loads, then built once for every later count", () => {
    expect(encoder.o200kPieceCounter).not.toHaveBeenCalled();
    expect(countTokens("hello world")).toBe(2);
    expect(countTokens("Später: 東京の天気は？ 1234567")).toBeGreaterThan(5);
    expect(encoder.o200kPieceCounter).toHaveBeenCalledTimes(1);
  });
});
