// route-latency (bench/route-latency.ts): the tables the benchmark prints, one function each, in the order it prints them.
import { int, ms, seconds, summary, table } from "../stats";
import { EVICTIONS, KINDS, WARMUP_ROUNDS, type Kind } from "./options";
import { SEARCH_DEPTH } from "./in-process";
import type { SizeResult } from "./measure";

/** The tenants as set up through the HTTP API: tools, edges, trajectories and the time their imports took. */
export function printSetup(results: readonly SizeResult[]): void {
  console.log(`\nSetup (through the HTTP API)`);
  console.log(
    table(
      ["tools", "edges", "trajectories", "tool import", "requests", "trajectory import", "requests"],
      results.map((r) => [
        int(r.tools),
        int(r.edges),
        int(r.trajectories),
        seconds(r.setup.toolImportMs),
        String(r.setup.toolBatches),
        seconds(r.setup.trajectoryImportMs),
        String(r.setup.trajectoryBatches),
      ]),
    ),
  );
}

/** Latency of every request kind at every size, through HTTP. */
export function printLatency(results: readonly SizeResult[], rounds: number): void {
  console.log(`\nLatency, ${rounds} sequential requests each (after ${WARMUP_ROUNDS} warm-up rounds), k = 8; target: graph p99 < 10 ms at 10,000 tools`);
  const rows: string[][] = [];
  for (const r of results) {
    for (const kind of KINDS) {
      const s = summary(r.latencies.get(kind) ?? []);
      rows.push([int(r.tools), kind, ms(s.p50), ms(s.p99), ms(s.max), ms(s.mean), `${int((r.bytes.get(kind) ?? 0) / Math.max(1, s.n))} B`]);
    }
  }
  console.log(table(["tools", "request", "p50", "p99", "max", "mean", "response"], rows));
}

/** The route work alone in this Node process, and the search alone. */
export function printInProcess(results: readonly SizeResult[], rounds: number): void {
  console.log(
    `\nThe route work alone, in this Node process (successors or BM25 search + prompt block + tools entries; ${rounds} calls each after 100 warm-up calls; no HTTP, no RPC); search alone at depth ${SEARCH_DEPTH}, CPU time: impact index (term at a time, exact rescoring), the re-ranking that covers the task's words (what routing adds to it), and MiniSearch, same queries; routing's whole lexical search (searchCoveringWords) without and with API evidence`,
  );
  console.log(
    table(
      [
        "tools",
        "graph p50",
        "graph p99",
        "retrieval p50",
        "retrieval p99",
        "search p50",
        "search p99",
        "re-rank p50",
        "re-rank p99",
        "MiniSearch p50",
        "MiniSearch p99",
        "routing search p50",
        "with API evidence p50",
        "p99",
      ],
      results.map((r) => {
        const g = summary(r.inProcess.graph);
        const q = summary(r.inProcess.retrieval);
        const s = summary(r.inProcess.search.impact);
        const c = summary(r.inProcess.search.covering);
        const m = summary(r.inProcess.search.minisearch);
        const plain = summary(r.inProcess.search.routing);
        const apis = summary(r.inProcess.search.withApis);
        return [
          int(r.tools),
          ms(g.p50),
          ms(g.p99),
          ms(q.p50),
          ms(q.p99),
          ms(s.p50),
          ms(s.p99),
          ms(c.p50),
          ms(c.p99),
          ms(m.p50),
          ms(m.p99),
          ms(plain.p50),
          ms(apis.p50),
          ms(apis.p99),
        ];
      }),
    ),
  );
}

/** Ratios within this run: each kind against "auth only", and p99 against the smallest size. */
export function printRatios(results: readonly SizeResult[]): void {
  console.log(`\nRatios within this run (p50 / p50 of "auth only" at the same size; p99 vs smallest size)`);
  const smallest = results[0];
  console.log(
    table(
      ["tools", "graph/auth p50", "fused/auth p50", "retrieval/auth p50", "graph p99 ÷ smallest", "retrieval p99 ÷ smallest"],
      results.map((r) => {
        const p = (res: SizeResult, kind: Kind) => summary(res.latencies.get(kind) ?? []);
        const auth = p(r, "auth only").p50;
        return [
          int(r.tools),
          (p(r, "graph").p50 / auth).toFixed(2),
          (p(r, "fused").p50 / auth).toFixed(2),
          (p(r, "retrieval").p50 / auth).toFixed(2),
          smallest === undefined ? "" : (p(r, "graph").p99 / p(smallest, "graph").p99).toFixed(2),
          smallest === undefined ? "" : (p(r, "retrieval").p99 / p(smallest, "retrieval").p99).toFixed(2),
        ];
      }),
    ),
  );
}

/** Against the one-RPC floor: carrying a route's bytes told from the route's work. */
export function printFloor(results: readonly SizeResult[]): void {
  const p50Of = (res: SizeResult, kind: Kind) => summary(res.latencies.get(kind) ?? []).p50;
  console.log(
    `\nAgainst the one-RPC floor in the same workerd (p50 ratios): the floor sent a retrieval step's request and answering as many bytes tells the route's work from the cost of carrying its bytes`,
  );
  console.log(
    table(
      ["tools", "auth only ÷ floor", "retrieval ÷ floor", "floor, route's bytes ÷ floor", "retrieval ÷ floor, route's bytes", "graph ÷ floor, route's bytes"],
      results.map((r) => [
        int(r.tools),
        (p50Of(r, "auth only") / p50Of(r, "floor")).toFixed(2),
        (p50Of(r, "retrieval") / p50Of(r, "floor")).toFixed(2),
        (p50Of(r, "floor, route's bytes") / p50Of(r, "floor")).toFixed(2),
        (p50Of(r, "retrieval") / p50Of(r, "floor, route's bytes")).toFixed(2),
        (p50Of(r, "graph") / p50Of(r, "floor, route's bytes")).toFixed(2),
      ]),
    ),
  );
}

/** The fused later step against the no-op and the floor that carries its bytes. */
export function printFused(results: readonly SizeResult[]): void {
  const p50Of = (res: SizeResult, kind: Kind) => summary(res.latencies.get(kind) ?? []).p50;
  console.log(
    `\nThe fused later step (after a random tool, never one routed from before in most requests) against the no-op and the floor that carries its bytes: for a task not routed before ("fused"), and for the task of the chat's first step ("fused, same chat": its ranking is remembered)`,
  );
  console.log(
    table(
      ["tools", "request", "p50", "p99", "auth only p50", "÷ auth only", "floor, fused bytes p50", "÷ floor, fused bytes", "answer"],
      results.flatMap((r) =>
        (["fused", "fused, same chat"] as const).map((kind) => {
          const fused = summary(r.latencies.get(kind) ?? []);
          const floor = p50Of(r, "floor, fused bytes");
          return [
            int(r.tools),
            kind,
            ms(fused.p50),
            ms(fused.p99),
            ms(p50Of(r, "auth only")),
            (fused.p50 / p50Of(r, "auth only")).toFixed(2),
            ms(floor),
            (fused.p50 / floor).toFixed(2),
            `${int((r.bytes.get(kind) ?? 0) / Math.max(1, fused.n))} B`,
          ];
        }),
      ),
    ),
  );
}

/** Cold start: the first request after an eviction, and after a rebuild from the rows. */
export function printColdStart(results: readonly SizeResult[]): void {
  console.log(
    `\nCold start: first request after simulateEviction() (${EVICTIONS} times each; state loaded from the stored index and graph), and once rebuilt from the rows (format change)`,
  );
  console.log(
    table(
      [
        "tools",
        "graph step: median",
        "CPU",
        "loaded by it",
        "retrieval step: median",
        "CPU",
        "next request: median",
        "rebuilt from rows",
        "CPU",
        "fused step: median",
        "CPU",
        "its data flow",
        "load report",
      ],
      results.map((r) => {
        const g = summary(r.reload.graph);
        const q = summary(r.reload.retrieval);
        return [
          int(r.tools),
          ms(g.p50),
          ms(summary(r.reload.cpu.graph).p50),
          r.reload.graphStepLoads,
          ms(q.p50),
          ms(summary(r.reload.cpu.retrieval).p50),
          ms(summary(r.reload.next).p50),
          ms(r.reload.rebuilt),
          ms(r.reload.cpu.rebuilt),
          ms(summary(r.reload.fused).p50),
          ms(summary(r.reload.cpu.fused).p50),
          r.reload.fusedReports.join(", "),
          r.reload.reports.join(" "),
        ];
      }),
    ),
  );
}

/** The load steps in this Node process, the rebuild they replace, stored sizes and heap. */
export function printLoadSteps(results: readonly SizeResult[]): void {
  console.log(
    `\nThe load steps in this Node process (same functions and data; CPU time, median of 3), the rebuild they replace (one run), stored sizes and heap after load (definitions: those the object keeps parsed after every tool was asked for, the most recently used within MAX_KEPT_DEFINITION_CHARS; views and data flow below)`,
  );
  console.log(
    table(
      [
        "tools",
        "parse every definition (rebuilds only)",
        "decode graph",
        "load index",
        "rebuild graph",
        "rebuild index",
        "stored graph",
        "stored index",
        "heap: definitions kept (≤ 2 MB of JSON)",
        "graph",
        "index",
        "sum",
      ],
      results.map((r) => [
        int(r.tools),
        ms(r.parts.parseDefinitions),
        ms(r.parts.decodeGraph),
        ms(r.parts.loadIndex),
        ms(r.parts.rebuildGraph),
        ms(r.parts.rebuildIndex),
        `${(r.parts.graphBytes / 1e6).toFixed(1)} MB`,
        `${(r.parts.indexBytes / 1e6).toFixed(1)} MB`,
        `${r.parts.heap.definitions.toFixed(1)} MB`,
        `${r.parts.heap.graph.toFixed(1)} MB`,
        `${r.parts.heap.index.toFixed(1)} MB`,
        `${(r.parts.heap.definitions + r.parts.heap.graph + r.parts.heap.index).toFixed(1)} MB`,
      ]),
    ),
  );
}

/** What a later step reads precomputed, and the tool views in memory. */
export function printLaterStep(results: readonly SizeResult[]): void {
  console.log(
    `\nWhat a later step reads precomputed, in this Node process: data-flow links (every tool's successors and producers, computed once per catalog change, stored; CPU time) and the prior's positions (once per graph version); heap after a forced collection. Tool views: in the object's memory after the timed rounds (views-memory.ts counts characters of view text, 200 more per tool; read in the background after an answer's first read), and every tool's views held the same way in this process, with their heap`,
  );
  console.log(
    table(
      [
        "tools",
        "links",
        "compute",
        "stored",
        "read back",
        "heap: links",
        "prior positions",
        "heap",
        "views in the object",
        "characters",
        "views here",
        "characters",
        "heap",
      ],
      results.map((r) => {
        const l = r.parts.laterStep;
        return [
          int(r.tools),
          int(l.links),
          ms(l.computeLinks),
          `${int(l.linksBytes)} B`,
          ms(l.loadLinks),
          `${l.linksHeap.toFixed(2)} MB`,
          int(l.priorRanks),
          `${l.priorHeap.toFixed(2)} MB`,
          `${int(r.viewsMemory.remembered)}${r.viewsMemory.complete ? "" : " (reading)"}`,
          `${(r.viewsMemory.chars / 1e6).toFixed(1)} M`,
          int(l.views),
          `${(l.viewsChars / 1e6).toFixed(1)} M`,
          `${l.viewsHeap.toFixed(1)} MB`,
        ];
      }),
    ),
  );
}
