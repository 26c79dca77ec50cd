/**
 * Where a route request's time goes in workerd: V8 CPU profiles of the service's isolate (the
 * Worker and the tenant's Durable Object share it), taken through workerd's inspector.
 *
 *   node bench/run.mjs route-profile [--skip-build] [--size=10000] [--requests=704] [--interval=100] [--top=40]
 *                                    [--kinds=retrieval,fused,same chat,auth only,feedback] [--focus=fn,fn] [--lines=fn]
 *
 * One tenant of `size` tools is set up as in route-latency (StableToolBench operations and renamed
 * copies, ≈ 10 observed successors per tool; quotas lifted), warmed up, and then each request kind
 * of `--kinds` is profiled alone, `requests` of it: first steps for StableToolBench tasks not routed
 * recently, fused later steps after a random tool (for such a task; or for the
 * task of one of 200 chats whose first steps were just taken: "same chat"), authenticated no-ops (`GET /v1/tenant`),
 * single feedback updates (three random tools).
 * Printed per kind: isolate CPU per request (busy samples, each counting the sampler's real period
 * while busy), inclusive time of every function (the top `--top`, or only those named in
 * `--focus`), self time by function, and with `--lines` the hot lines of one function. Profiles
 * inflate absolute times (sampling); compare shares and kinds within one run.
 */
import { setUpTenant, startBenchService } from "./lib/bench-service";
import { withContentLength } from "./lib/sized-request";
import { corpusItems, readData, recordedTrajectories, syntheticWalks, taskCycle, toolItems } from "./lib/tool-corpus";
import { serviceInspector } from "./lib/inspector";
import { analyse, profiled } from "./lib/cpu-profile";
import { machineLine, randomInt, seededRandom, shuffle } from "./lib/stats";
import type { TestService } from "../test/helpers/service";

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

/** Chats of the "same chat" kind: fewer than the object's memo of task rankings keeps (256). */
const SAME_CHATS = 200;

async function main(): Promise<void> {
  const size = Number(option("size", "10000"));
  const requests = Number(option("requests", "704"));
  const interval = Number(option("interval", "100"));
  const top = Number(option("top", "40"));
  // Empty: every function's inclusive time (the top ones printed).
  const focus = option("focus", "")
    .split(",")
    .filter((f) => f !== "");
  console.log(`Route profile in workerd — ${machineLine()}`);
  const port = 9300 + Math.floor(Math.random() * 500);
  const { service } = await startBenchService({ inspectorPort: port });
  try {
    const queries = (readData("stabletoolbench/retrieval_queries.json") as { query: string }[]).map((q) => q.query);
    const items = toolItems(size, corpusItems());
    const names = items.map((i) => i.name);
    const trajectories = [...recordedTrajectories(new Set(names)), ...syntheticWalks(names, 10, size)];
    const setup = await setUpTenant(service, `profile-${size}`, items, trajectories);
    const headers = { authorization: `Bearer ${setup.key}`, "content-type": "application/json" };
    // The tenant's rate quotas would answer much of this load with 429: lift them, the route is what is profiled.
    const loose = { perSecond: 10_000, burst: 100_000 };
    await send(service, "http://atc.test/v1/settings/quotas", {
      method: "PUT",
      headers,
      body: JSON.stringify({ rates: { reads: loose, routing: loose, writes: loose } }),
    });
    const random = seededRandom(7);
    // First and fused steps route a task not routed recently (the object remembers recent tasks' rankings).
    const fresh = taskCycle(queries, random);
    const route = (body: Record<string, unknown>) => send(service, "http://atc.test/v1/route", { method: "POST", headers, body: JSON.stringify(body) });
    const randomTool = () => names[randomInt(random, names.length)] ?? "";
    // The chats of "same chat": their first steps are taken before it is profiled, then later steps route their tasks.
    const chats = shuffle([...queries], random).slice(0, SAME_CHATS);
    let chat = 0;
    const kinds: Record<string, () => Promise<void>> = {
      retrieval: () => route({ task: fresh(), k: 8 }),
      // A later step in the default (fused) mode after a random tool, as route-latency sends it.
      fused: () => route({ task: fresh(), previousTool: randomTool(), k: 8 }),
      "same chat": () => {
        chat = (chat + 1) % chats.length;
        return route({ task: chats[chat] ?? "", previousTool: randomTool(), k: 8 });
      },
      "auth only": () => send(service, "http://atc.test/v1/tenant", { headers: { authorization: headers.authorization } }),
      // A single evaluator update, as feedback-throughput sends them: three tools, one score each.
      feedback: () => {
        const tools = [0, 1, 2].map(() => randomTool());
        return send(service, "http://atc.test/v1/feedback", { method: "POST", headers, body: JSON.stringify({ tools, scores: [1, -1, 2] }) });
      },
    };
    const firstSteps = async () => {
      for (const task of chats) await route({ task, k: 8 });
    };
    const wanted = option("kinds", "retrieval,auth only").split(",");
    for (const kind of Object.keys(kinds)) if (!wanted.includes(kind)) delete kinds[kind];
    if (kinds["same chat"] !== undefined) await firstSteps();
    for (let i = 0; i < 300; i += 1) {
      for (const run of Object.values(kinds)) await run();
    }
    const inspector = await serviceInspector(port);
    try {
      for (const [kind, run] of Object.entries(kinds)) {
        if (kind === "same chat") await firstSteps();
        const t0 = performance.now();
        const profile = await profiled(inspector, interval, async () => {
          for (let i = 0; i < requests; i += 1) await run();
        });
        const wall = (performance.now() - t0) / requests;
        const { busyMs, self, inclusive, period } = analyse(profile, focus, interval);
        const lines = option("lines", "");
        if (lines !== "") {
          const ticks = new Map<number, number>();
          for (const node of profile.nodes) {
            if (node.callFrame.functionName !== lines) continue;
            for (const t of node.positionTicks ?? []) ticks.set(t.line, (ticks.get(t.line) ?? 0) + t.ticks);
          }
          console.log(`  ${lines}: ticks by line ${JSON.stringify([...ticks].sort((a, b) => b[1] - a[1]).slice(0, 12))}`);
        }
        const sampled = profile.samples.length * period;
        console.log(
          `\n${kind}: ${requests} requests, isolate busy ${(busyMs / requests).toFixed(3)} ms per request (wall ${wall.toFixed(2)} ms, profiled; ${(sampled / requests).toFixed(2)} ms sampled, busy or idle; one sample counts ${(period * 1000).toFixed(0)} µs, the sampler's period while busy)`,
        );
        console.log("  inclusive, ms per request:");
        const shownInclusive =
          focus.length === 0
            ? [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)
            : focus.flatMap((fn) => (inclusive.has(fn) ? [[fn, inclusive.get(fn) ?? 0] as const] : []));
        for (const [fn, t] of shownInclusive) console.log(`    ${(t / requests).toFixed(4)}  ${((100 * t) / busyMs).toFixed(1).padStart(5)} %  ${fn}`);
        console.log("  self, ms per request:");
        for (const [name, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
          console.log(`    ${(t / requests).toFixed(4)}  ${((100 * t) / busyMs).toFixed(1).padStart(5)} %  ${name}`);
        }
      }
    } finally {
      inspector.close();
    }
  } finally {
    await service.dispose();
  }
}

async function send(service: TestService, url: string, init: RequestInit): Promise<void> {
  const response = await service.mf.dispatchFetch(url, withContentLength(init) as never);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url}: HTTP ${response.status} ${text.slice(0, 300)}`);
}

await main();
