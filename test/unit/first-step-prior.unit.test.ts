import { describe, expect, it } from "vitest";
import { MIN_START_SHARE, START_HALF_LIFE, startCounts, usualStarts } from "../../functions/toolnet/first-step-prior";
import { fuseFirstStep } from "../../functions/toolnet/signal-fusion";

/** `n` starts named `prefix0…`, each with `tool` first. */
const starts = (prefix: string, tool: string, n: number): [string, string][] => Array.from({ length: n }, (_, i) => [`${prefix}${i}`, tool]);

const everyTool = () => true;

describe("how a tenant's conversations usually start", () => {
  it("a tool that starts a large share of conversations is a usual start; one among many spread starts is not", () => {
    const spread = Array.from({ length: 30 }, (_, i): [string, string] => [`s${i}`, `tool${i}`]);
    const counts = startCounts([...starts("g", "ToolSearcher", 12), ...spread], everyTool);
    const usual = usualStarts(counts);
    expect(usual.map((s) => s.tool)).toEqual(["ToolSearcher"]);
    expect(usual[0]?.observed).toBe(12);
    expect(usual[0]?.share).toBeGreaterThan(MIN_START_SHARE);
  });

  it("a tenant with too few conversations has no usual start", () => {
    expect(usualStarts(startCounts(starts("a", "GetUserToken", 2), everyTool))).toEqual([]);
    expect(usualStarts(startCounts([], everyTool))).toEqual([]);
  });

  it("old starts fade: a start one half-life older weighs half as much", () => {
    const old = starts("old", "Aold", 1);
    const newer = starts("new", "Znew", START_HALF_LIFE);
    const counts = startCounts([...old, ...newer], everyTool);
    expect(counts.weightOf(`new${START_HALF_LIFE - 1}`)).toBe(1);
    expect(counts.weightOf("old0")).toBeCloseTo(0.5, 6);
    // What users do lately leads: as many starts as an older usual start, but newer (a tie would go to the first name).
    const late = startCounts([...starts("a", "Aold", 100), ...starts("z", "Znew", 100)], everyTool);
    expect(usualStarts(late).map((s) => s.tool)).toEqual(["Znew", "Aold"]);
  });

  it("a replayed task's own start is left out, and starts of removed tools do not count", () => {
    const counts = startCounts([...starts("a", "GetUserToken", 3), ...starts("b", "Other", 20)], everyTool);
    expect(usualStarts(counts).map((s) => s.tool)).toContain("GetUserToken");
    expect(usualStarts(counts, { tool: "GetUserToken", weight: counts.weightOf("a2") }).map((s) => s.tool)).not.toContain("GetUserToken");
    const withoutOther = startCounts([...starts("a", "GetUserToken", 3), ...starts("b", "Other", 20)], (tool) => tool !== "Other");
    expect(usualStarts(withoutOther).map((s) => s.tool)).toEqual(["GetUserToken"]);
  });

  it("at a first step, a usual start the words do not rank joins the first 5 at weight 1 and stays out muted; the best match still leads", () => {
    const relevance = Array.from({ length: 8 }, (_, i) => ({ name: `word${i}`, score: 10 - i }));
    const usual = usualStarts(startCounts(starts("g", "ToolSearcher", 10), everyTool));
    const at = (weight: number) => fuseFirstStep({ relevance, history: [], starts: { tools: usual, weight } }).map((c) => c.tool);
    expect(at(1).slice(0, 5)).toContain("ToolSearcher");
    expect(at(1)[0]).toBe("word0");
    expect(at(0)).toEqual(fuseFirstStep({ relevance, history: [] }).map((c) => c.tool));
    expect(at(0)).not.toContain("ToolSearcher");
    const why = fuseFirstStep({ relevance, history: [], starts: { tools: usual, weight: 1 } }).find((c) => c.tool === "ToolSearcher")?.why;
    expect(why).toEqual({ prior: { observed: 10 } });
  });
});
