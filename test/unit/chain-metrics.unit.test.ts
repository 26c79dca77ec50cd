import { describe, expect, it } from "vitest";
import { scoreSet, scoreTask } from "../../functions/chain/metrics";

describe("ATC metrics (appendix A.1.1)", () => {
  it("succeeds only when every gold tool ran successfully", () => {
    expect(
      scoreTask(
        ["a", "b"],
        [
          { tool: "a", ok: true },
          { tool: "b", ok: true },
        ],
      ).success,
    ).toBe(1);
    expect(
      scoreTask(
        ["a", "b"],
        [
          { tool: "a", ok: true },
          { tool: "b", ok: false },
        ],
      ).success,
    ).toBe(0);
    expect(scoreTask(["a", "b"], [{ tool: "a", ok: true }]).success).toBe(0);
  });

  it("computes path as gold recall and precision over generated calls, as multisets", () => {
    // gold a,b,b; calls a,b,c,c → overlap 2; path 2/3; precision 2/4
    const score = scoreTask(
      ["a", "b", "b"],
      [
        { tool: "a", ok: true },
        { tool: "b", ok: true },
        { tool: "c", ok: true },
        { tool: "c", ok: false },
      ],
    );
    expect(score.path).toBeCloseTo(2 / 3);
    expect(score.precision).toBeCloseTo(0.5);
    expect(score.success).toBe(0);
  });

  it("scores an empty trajectory as zero everywhere", () => {
    expect(scoreTask(["a"], [])).toEqual({ success: 0, path: 0, precision: 0 });
  });

  it("averages a set as percentages", () => {
    const set = scoreSet([
      { success: 1, path: 1, precision: 0.5 },
      { success: 0, path: 0.5, precision: 1 },
    ]);
    expect(set).toEqual({ tasks: 2, successPct: 50, pathPct: 75, precisionPct: 75 });
  });
});
