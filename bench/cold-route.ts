/**
 * Cold and warm parity (issue 42): the first route of a tenant of many tools after an eviction
 * (objects cold) beside a small tenant's, and warm routes of both.
 *
 *   node bench/run.mjs cold-route [--skip-build] [--size=10000] [--one-api] [--rounds=5] [--k=8] [--profile] [--top=30]
 *   node bench/run.mjs cold-route --graph-flow [--size=11422] [--rounds=9]
 *
 * Tenants (bench/lib/bench-tenants.ts): `size` generated tools (StableToolBench operations and
 * renamed copies, ≈ 10 observed successors each; `--one-api`: all of them operations of one API with
 * Graph-long descriptions, as Microsoft Graph's 11,422) and RestBench's TMDB document (54 tools), their
 * routing prepared by the alarm. Each round evicts both objects' in-memory state
 * (`simulateEviction`) and sends each tenant's first step (no previous tool) for a task it has not
 * routed, in alternating order; then 5 warm first steps of each. Printed: the median and worst
 * cold route of each and their ratio (target ≤ 4×), the warm medians (target ≤ 2×), whether every
 * answer held `k` candidates, and how the big tenant's state loaded. `--profile`: a V8 CPU profile of
 * the isolate over each cold route: the median CPU of each tenant's (wall times on a shared machine
 * hold waits for a core), and the big one's summed by function (inclusive and self time).
 *
 * `--graph-flow` (Node alone, no workerd; a minute): Microsoft Graph's cold route was slow for its data
 * flow, served per request from the stored flow state, which generated tools do not reproduce. It
 * stores a Graph-shaped flow state (test/helpers/graph-shaped-flow.ts) of `size` tools, then per
 * round reads it back and asks what a first route asks of the tools it ranks (feeders and name
 * lookups of 8 tools), once as a cold route does now (a tool at a time, stored output index) and
 * once reading every tool and making the output index first (what the route did before
 * `flow-samples/3`, which parsed the state in one JSON document): the process's CPU of each, tools read.
 */
import { tenantObject, startBenchService } from "./lib/bench-service";
import { benchQueries, bigTenant, firstStep, liftQuotas, prepared, smallTenant, type BenchTenant } from "./lib/bench-tenants";
import { analyse, type Profile, profiled, topLines } from "./lib/cpu-profile";
import { serviceInspector, type Inspector } from "./lib/inspector";
import { machineLine } from "./lib/stats";
import type { TestService } from "../test/helpers/service";
import { oneApi, stateOf } from "../test/helpers/graph-shaped-flow";
import { flowStateIndex } from "../functions/toolnet/data-flow-state";
import { decodeFlowState, encodeFlowState, type FlowState, flowRecordsRead } from "../functions/toolnet/flow-samples-codec";
import type { DataFlowIndex, FlowTool } from "../functions/toolnet/data-flow";
import { PRODUCERS_PER_TOOL } from "../functions/toolnet/signal-fusion";

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

const SMALL_TASKS = ["list movie genres", "who directed Inception", "find the cast of Fight Club", "trending movies this week", "search for Brad Pitt"];
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const ms = (value: number) => `${value.toFixed(0)} ms`;

interface Rounds {
  cold: { big: number[]; small: number[] };
  warm: { big: number[]; small: number[] };
  short: number;
  profiles: { big: Profile[]; small: Profile[] };
}

async function rounds(service: TestService, big: BenchTenant, small: BenchTenant, inspector: Inspector | undefined): Promise<Rounds> {
  const count = Number(option("rounds", "5"));
  const k = Number(option("k", "8"));
  const queries = benchQueries();
  const result: Rounds = { cold: { big: [], small: [] }, warm: { big: [], small: [] }, short: 0, profiles: { big: [], small: [] } };
  let task = 0;
  const route = async (tenant: BenchTenant, which: "big" | "small", profile: boolean) => {
    const text = which === "big" ? (queries[task++ % queries.length] ?? "") : (SMALL_TASKS[task++ % SMALL_TASKS.length] ?? "");
    let answer = { ms: 0, candidates: 0 };
    const ask = async () => {
      answer = await firstStep(service, tenant, text, k);
    };
    if (profile && inspector !== undefined) result.profiles[which].push(await profiled(inspector, 200, ask));
    else await ask();
    if (answer.candidates !== k) result.short += 1;
    return answer.ms;
  };
  for (let round = 0; round < count; round += 1) {
    for (const tenant of [big, small]) await (await tenantObject(service, tenant.id)).simulateEviction();
    const order = round % 2 === 0 ? (["big", "small"] as const) : (["small", "big"] as const);
    for (const which of order) result.cold[which].push(await route(which === "big" ? big : small, which, true));
    for (let i = 0; i < 5; i += 1) {
      result.warm.big.push(await route(big, "big", false));
      result.warm.small.push(await route(small, "small", false));
    }
  }
  return result;
}

/** The isolate's CPU over each cold route (profiled, JavaScript and the native calls it makes), median. */
function cpuPerRoute(profiles: readonly Profile[]): number {
  return median(profiles.map((profile) => analyse(profile, [], 200).busyMs));
}

function printProfiles({ big: profiles, small }: Rounds["profiles"]): void {
  if (profiles.length === 0) return;
  const [bigCpu, smallCpu] = [cpuPerRoute(profiles), cpuPerRoute(small)];
  console.log(`cold route CPU      big median ${ms(bigCpu)}, small median ${ms(smallCpu)} (isolate, profiled): ${(bigCpu / smallCpu).toFixed(1)}×`);
  const top = Number(option("top", "30"));
  const merged = { busyMs: 0, self: new Map<string, number>(), inclusive: new Map<string, number>() };
  for (const profile of profiles) {
    const one = analyse(profile, [], 200);
    merged.busyMs += one.busyMs;
    for (const [kind, map] of [
      ["self", one.self],
      ["inclusive", one.inclusive],
    ] as const)
      for (const [name, t] of map) merged[kind].set(name, (merged[kind].get(name) ?? 0) + t);
  }
  const n = profiles.length;
  console.log(`\ncold big route, isolate CPU (profiled): ${(merged.busyMs / n).toFixed(1)} ms per route; inclusive, per route:`);
  for (const line of topLines(merged.inclusive, merged.busyMs, n, top)) console.log(line);
  console.log("self, per route:");
  for (const line of topLines(merged.self, merged.busyMs, n, top)) console.log(line);
}

/** What a first route asks of data flow about the tools it ranks (signal-fusion.ts, name-lookup.ts). */
function firstRouteAsks(index: DataFlowIndex<FlowTool>, ranked: readonly string[]): number {
  let found = 0;
  for (const tool of ranked) found += index.feeders(tool, PRODUCERS_PER_TOOL).length + index.nameLookups(tool).length;
  return found;
}

/** The process's CPU since `since`, in ms: on this shared machine a wall time holds waits for a core. */
function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/** One cold ask over the stored state read back, a tool at a time and after reading every tool: CPU of each, tools read. */
function coldAsk(
  bytes: Uint8Array,
  ask: (index: DataFlowIndex<FlowTool>) => number,
): { lazyMs: number; wholeMs: number; read: number; found: [number, number] } {
  const c0 = process.cpuUsage();
  const stored = decodeFlowState(bytes) as FlowState;
  const foundLazy = ask(flowStateIndex(stored));
  const lazyMs = cpuMs(c0);
  const c1 = process.cpuUsage();
  const again = decodeFlowState(bytes) as FlowState;
  const foundWhole = ask(flowStateIndex({ tools: new Map(again.tools), samples: new Map(again.samples) }));
  return { lazyMs, wholeMs: cpuMs(c1), read: flowRecordsRead(stored) ?? 0, found: [foundLazy, foundWhole] };
}

/** `--graph-flow`: a stored Graph-shaped flow state read back per round, a tool at a time against every tool first. */
function graphFlow(): void {
  const size = Number(option("size", "11422"));
  const api = oneApi(size);
  const bytes = encodeFlowState(stateOf(api));
  const ranked = [...Array.from({ length: 7 }, (_, i) => api[Math.floor(((i + 1) * size) / 8)]?.tool.name ?? ""), "searchusers"];
  const asks = {
    "first route (feeders and name lookups of 8 ranked tools)": (index: DataFlowIndex<FlowTool>) => firstRouteAsks(index, ranked),
    "later step (a search's successors)": (index: DataFlowIndex<FlowTool>) => index.successors("searchusers").length,
  };
  console.log(`flow state          ${size} Graph-shaped tools, ${(bytes.byteLength / 2 ** 20).toFixed(1)} MiB stored; ${option("rounds", "9")} rounds`);
  for (const [label, ask] of Object.entries(asks)) {
    const rounds = Array.from({ length: Number(option("rounds", "9")) }, () => coldAsk(bytes, ask));
    const last = rounds[rounds.length - 1];
    const [lazy, whole] = [median(rounds.map((r) => r.lazyMs)), median(rounds.map((r) => r.wholeMs))];
    console.log(
      `${label}, CPU median: a tool at a time ${lazy.toFixed(1)} ms (${last?.read} tools read), every tool first ${whole.toFixed(1)} ms: ${(whole / lazy).toFixed(0)}×; found ${last?.found.join(" / ")}`,
    );
  }
}

async function main(): Promise<void> {
  if (process.argv.includes("--graph-flow")) {
    console.log(`Graph-shaped data flow in Node — ${machineLine()}`);
    graphFlow();
    return;
  }
  const size = Number(option("size", "10000"));
  console.log(`Cold and warm routes in workerd — ${machineLine()}`);
  const port = 9300 + Math.floor(Math.random() * 500);
  const { service } = await startBenchService({ inspectorPort: port, programHost: false });
  const inspector = process.argv.includes("--profile") ? await serviceInspector(port) : undefined;
  try {
    const big = await bigTenant(service, size, process.argv.includes("--one-api"));
    const small = await smallTenant(service);
    for (const tenant of [big, small]) {
      await liftQuotas(service, tenant);
      await prepared(service, tenant);
    }
    const result = await rounds(service, big, small, inspector);
    const report = await (await tenantObject(service, big.id)).routingLoadReport();
    const [coldBig, coldSmall, warmBig, warmSmall] = [result.cold.big, result.cold.small, result.warm.big, result.warm.small].map(median) as [
      number,
      number,
      number,
      number,
    ];
    console.log(
      `tenants             big ${big.tools} tools${process.argv.includes("--one-api") ? " (one API)" : ""}, small ${small.tools} tools (TMDB); ${result.cold.big.length} rounds`,
    );
    console.log(
      `cold first route    big median ${ms(coldBig)} (worst ${ms(Math.max(...result.cold.big))}), small median ${ms(coldSmall)} (worst ${ms(Math.max(...result.cold.small))}): ${(coldBig / coldSmall).toFixed(1)}× (target ≤ 4×)`,
    );
    console.log(`warm first route    big median ${ms(warmBig)}, small median ${ms(warmSmall)}: ${(warmBig / warmSmall).toFixed(1)}× (target ≤ 2×)`);
    console.log(`answers             ${result.short === 0 ? "every answer held k candidates" : `${result.short} answers held fewer than k candidates`}`);
    console.log(`big tenant's load   ${JSON.stringify(report)}`);
    printProfiles(result.profiles);
  } finally {
    inspector?.close();
    await service.dispose();
  }
}

await main();
