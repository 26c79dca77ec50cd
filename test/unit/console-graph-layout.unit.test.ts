import { describe, expect, it } from "vitest";
// @ts-expect-error: a browser script of the console (plain JS, bundled by scripts/build-console.mjs), tested as a module.
import { columns, labelWidth, positions, ROW_HEIGHT } from "../../functions/http/console/client/graph-layout.js";

type Data = { nodes: { id: string; kind: "tool" | "start" | "end" }[]; edges: [number, number, number, number][] };
const layoutColumns = columns as (data: Data) => Map<number, number>;
const layoutPositions = positions as (data: Data, all: boolean) => Map<number, { x: number; y: number }>;
const estimatedLabelWidth = labelWidth as (name: string) => number;

const data: Data = {
  nodes: [
    { id: "<start>", kind: "start" },
    { id: "search", kind: "tool" },
    { id: "details", kind: "tool" },
    { id: "credits", kind: "tool" },
    { id: "unused", kind: "tool" },
    { id: "<end>", kind: "end" },
  ],
  edges: [
    [0, 1, 900, 3],
    [1, 2, 500, 2],
    [2, 3, 500, 2],
    [1, 3, 300, 1],
    [3, 1, 100, 1],
    [3, 5, 900, 2],
  ],
};

describe("graph page layout", () => {
  it("puts learned nodes in columns from start to end, longest path first; a cycle does not loop", () => {
    expect(Object.fromEntries(layoutColumns(data))).toEqual({ 0: 0, 1: 1, 2: 2, 3: 3, 5: 4 });
  });

  it("draws the learned nodes apart, and the other tools only on demand", () => {
    const learned = layoutPositions(data, false);
    expect([...learned.keys()].sort()).toEqual([0, 1, 2, 3, 5]);
    const spots = [...learned.values()];
    for (const a of spots) for (const b of spots) if (a !== b) expect(a.x !== b.x || Math.abs(a.y - b.y) >= ROW_HEIGHT - 1).toBe(true);
    expect(layoutPositions(data, true).has(4)).toBe(true);
  });

  it("keeps a long name's label clear of the next column, in the learned part and in the grid of every tool", () => {
    const long = (stem: string) => `${stem}TvIdSeasonSeasonNumberEpisodeEpisodeNumberCredits`;
    const names: Data = {
      nodes: [
        { id: "<start>", kind: "start" },
        { id: long("getA"), kind: "tool" },
        { id: long("getB"), kind: "tool" },
        ...Array.from({ length: 7 }, (_, i) => ({ id: long(`getGrid${i}`), kind: "tool" as const })),
      ],
      edges: [
        [0, 1, 900, 3],
        [1, 2, 500, 2],
      ],
    };
    const placed = [...layoutPositions(names, true)].map(([index, at]) => ({ ...at, name: names.nodes[index]?.id ?? "" }));
    for (const a of placed)
      for (const b of placed)
        if (a !== b && a.x < b.x && Math.abs(a.y - b.y) < ROW_HEIGHT)
          expect(a.x + estimatedLabelWidth(a.name), `${a.name} runs into ${b.name}`).toBeLessThanOrEqual(b.x);
  });
});
