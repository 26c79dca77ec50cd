/**
 * Next-tool accuracy of a statically built ToolNet graph on held-out API-Bank sequences.
 *
 *   node bench/run.mjs next-tool-accuracy          (pure code, no workerd; a few seconds)
 *
 * Data: ../shared/data/api-bank/api_call_sequences.json (313 dialogues, 311 with a call),
 * parsed with the project's `apiBankTrajectories`; tools = the 71 APIs of
 * api_catalog_from_source.json (every sequence's tools are among them).
 *
 * Split: a seeded shuffle, 80 % of the trajectories build the graph (`createGraph`, `addTools`,
 * `addTrajectories`), 20 % are held out. For every transition of a held-out sequence, start →
 * first tool, tool → tool and last tool → end, the true next node is looked up in
 * `successors(graph, previous, 3)`: END is a candidate only when the true next is END (with
 * `includeEnd: true`); otherwise candidates are tools only. top-1 = first candidate is right,
 * top-3 = right one among the first three.
 *
 * Baseline: the most frequent tools of the training sequences (occurrence counts), the same list
 * after every tool; when END is a candidate, it joins that list with its count (one per training
 * sequence), which puts it first.
 *
 * Two protocols. (A) is the one above: END is offered only when it is the true next node, which
 * tells the ranker that the sequence ends there; the baseline, which ranks END first, then scores
 * every end transition for free. (B) offers END at every step (`includeEnd: true` always), as
 * routing does (/v1/route lists Finish): a ranker must then also know when not to stop.
 *
 * API-Bank repeats itself: 313 records hold only 126 distinct sequences, so a record split puts
 * most test sequences verbatim in training. The second table splits the distinct sequences
 * instead (every copy of a sequence on the same side), which is the harder, fairer figure.
 */
import { addTools, addTrajectories, apiBankTrajectories, createGraph, END, START, successors, type Trajectory } from "../functions/toolnet/graph";
import { readData } from "./lib/tool-corpus";
import { machineLine, seededRandom, shuffle, table } from "./lib/stats";

type Kind = "start→first" | "tool→tool" | "tool→end";
const KINDS: readonly Kind[] = ["start→first", "tool→tool", "tool→end"];

/** Hits under protocol A (END offered only when it is the answer) and B (END always offered). */
interface Tally {
  n: number;
  graph1: number;
  graph3: number;
  base1: number;
  base3: number;
  graph1B: number;
  graph3B: number;
  base1B: number;
  base3B: number;
}

const emptyTally = (): Tally => ({ n: 0, graph1: 0, graph3: 0, base1: 0, base3: 0, graph1B: 0, graph3B: 0, base1B: 0, base3B: 0 });
const FIELDS = ["n", "graph1", "graph3", "base1", "base3", "graph1B", "graph3B", "base1B", "base3B"] as const;

function catalogTools(): string[] {
  const catalog = readData("api-bank/api_catalog_from_source.json") as { apis: { name: string }[]; lv3_apis: { name: string }[] };
  return [...new Set([...catalog.apis, ...catalog.lv3_apis].map((api) => api.name))];
}

/** Tools by occurrence count in `train` (ties by name), and END's count (one per sequence). */
function frequencyBaseline(train: readonly Trajectory[], tools: readonly string[]): { ranked: string[]; endCount: number; counts: Map<string, number> } {
  const counts = new Map<string, number>(tools.map((t) => [t, 0]));
  for (const t of train) for (const tool of t.tools) counts.set(tool, (counts.get(tool) ?? 0) + 1);
  const ranked = [...counts.keys()].sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0) || (a < b ? -1 : 1));
  return { ranked, endCount: train.length, counts };
}

function evaluate(train: readonly Trajectory[], test: readonly Trajectory[], tools: readonly string[]): Map<Kind, Tally> {
  const graph = createGraph();
  addTools(graph, tools);
  addTrajectories(graph, train);
  const baseline = frequencyBaseline(train, tools);
  const baselineWithEnd = [...baseline.ranked];
  const endAt = baselineWithEnd.findIndex((tool) => (baseline.counts.get(tool) ?? 0) < baseline.endCount);
  baselineWithEnd.splice(endAt === -1 ? baselineWithEnd.length : endAt, 0, END);

  const tallies = new Map<Kind, Tally>(KINDS.map((k) => [k, emptyTally()]));
  for (const trajectory of test) {
    const path = [START, ...trajectory.tools, END];
    for (let i = 0; i + 1 < path.length; i += 1) {
      const previous = path[i] ?? START;
      const next = path[i + 1] ?? END;
      const kind: Kind = previous === START ? "start→first" : next === END ? "tool→end" : "tool→tool";
      const ranked = successors(graph, previous, 3, { includeEnd: next === END }).map((r) => r.tool);
      const rankedB = successors(graph, previous, 3, { includeEnd: true }).map((r) => r.tool);
      const base = next === END ? baselineWithEnd : baseline.ranked;
      const tally = tallies.get(kind) ?? emptyTally();
      const hit = (list: readonly string[], k: number): number => (list.slice(0, k).includes(next) ? 1 : 0);
      tally.n += 1;
      tally.graph1 += hit(ranked, 1);
      tally.graph3 += hit(ranked, 3);
      tally.base1 += hit(base, 1);
      tally.base3 += hit(base, 3);
      tally.graph1B += hit(rankedB, 1);
      tally.graph3B += hit(rankedB, 3);
      tally.base1B += hit(baselineWithEnd, 1);
      tally.base3B += hit(baselineWithEnd, 3);
    }
  }
  return tallies;
}

function combine(tallies: Map<Kind, Tally>, kinds: readonly Kind[]): Tally {
  const out = emptyTally();
  for (const kind of kinds) {
    const t = tallies.get(kind);
    if (t === undefined) continue;
    for (const field of FIELDS) out[field] += t[field];
  }
  return out;
}

const pct = (hits: number, n: number): string => (n === 0 ? "n/a" : `${((100 * hits) / n).toFixed(1)} %`);

const ROWS: readonly [string, readonly Kind[]][] = [
  ["all transitions", KINDS],
  ["  start→first", ["start→first"]],
  ["  tool→tool", ["tool→tool"]],
  ["  tool→end", ["tool→end"]],
  ["tool targets (no end)", ["start→first", "tool→tool"]],
];

function printTable(tallies: Map<Kind, Tally>): void {
  const rows = ROWS.map(([label, kinds]) => {
    const t = combine(tallies, kinds);
    return [label, String(t.n), ...[t.graph1, t.graph3, t.base1, t.base3, t.graph1B, t.graph3B, t.base1B, t.base3B].map((hits) => pct(hits, t.n))];
  });
  console.log("           A: END offered only when it is the answer        B: END offered at every step");
  console.log(table(["transitions", "n", "A graph@1", "A graph@3", "A freq@1", "A freq@3", "B graph@1", "B graph@3", "B freq@1", "B freq@3"], rows));
}

/** Split records (or distinct sequences, every copy on one side) 80/20 with a seeded shuffle. */
function split(trajectories: readonly Trajectory[], seed: number, byDistinctSequence: boolean): { train: Trajectory[]; test: Trajectory[] } {
  const random = seededRandom(seed);
  if (!byDistinctSequence) {
    const shuffled = shuffle([...trajectories], random);
    const cut = Math.round(shuffled.length * 0.8);
    return { train: shuffled.slice(0, cut), test: shuffled.slice(cut) };
  }
  const groups = new Map<string, Trajectory[]>();
  for (const t of trajectories) {
    const key = t.tools.join("\u0000");
    groups.set(key, [...(groups.get(key) ?? []), t]);
  }
  const keys = shuffle([...groups.keys()].sort(), random);
  const cut = Math.round(keys.length * 0.8);
  const pick = (ks: string[]): Trajectory[] => ks.flatMap((k) => groups.get(k) ?? []);
  return { train: pick(keys.slice(0, cut)), test: pick(keys.slice(cut)) };
}

function verbatimOverlap(train: readonly Trajectory[], test: readonly Trajectory[]): number {
  const seen = new Set(train.map((t) => t.tools.join("\u0000")));
  return test.filter((t) => seen.has(t.tools.join("\u0000"))).length;
}

function main(): void {
  const started = performance.now();
  console.log(`Next-tool accuracy of a static ToolNet graph on held-out API-Bank sequences — ${machineLine()}`);
  const parsed = apiBankTrajectories(readData("api-bank/api_call_sequences.json"));
  const tools = catalogTools();
  const distinct = new Set(parsed.trajectories.map((t) => t.tools.join("\u0000"))).size;
  console.log(
    `${parsed.trajectories.length} trajectories (${parsed.skipped.length} records skipped: ${parsed.skipped.map((s) => s.reason).join(", ")}), ${distinct} distinct sequences, ${tools.length} tools`,
  );

  const SEED = 1;
  const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);
  for (const byDistinct of [false, true]) {
    const label = byDistinct
      ? "Split by distinct sequence (no test sequence seen verbatim in training)"
      : "Split by record (as the dataset comes; duplicates leak)";
    const { train, test } = split(parsed.trajectories, SEED, byDistinct);
    console.log(
      `\n${label}, seed ${SEED}: ${train.length} train / ${test.length} test trajectories; ${verbatimOverlap(train, test)} test sequences appear verbatim in training`,
    );
    printTable(evaluate(train, test, tools));

    const runs = SEEDS.map((seed) => {
      const s = split(parsed.trajectories, seed, byDistinct);
      const tallies = evaluate(s.train, s.test, tools);
      return { tools: combine(tallies, ["start→first", "tool→tool"]), all: combine(tallies, KINDS) };
    });
    const spread = (pick: (r: (typeof runs)[number]) => Tally, field: (typeof FIELDS)[number]): string => {
      const xs = runs.map((r) => pick(r)[field] / Math.max(1, pick(r).n));
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      return `${(100 * mean).toFixed(1)} (${(100 * Math.min(...xs)).toFixed(1)}–${(100 * Math.max(...xs)).toFixed(1)})`;
    };
    console.log(`over seeds 1–${SEEDS.length}, % mean (min–max):`);
    console.log(
      `  tool targets       graph top-1 ${spread((r) => r.tools, "graph1")}, top-3 ${spread((r) => r.tools, "graph3")}; freq. top-1 ${spread((r) => r.tools, "base1")}, top-3 ${spread((r) => r.tools, "base3")}`,
    );
    console.log(
      `  all, protocol B    graph top-1 ${spread((r) => r.all, "graph1B")}, top-3 ${spread((r) => r.all, "graph3B")}; freq. top-1 ${spread((r) => r.all, "base1B")}, top-3 ${spread((r) => r.all, "base3B")}`,
    );
  }
  console.log(`\ndone in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main();
