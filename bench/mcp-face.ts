/**
 * The MCP face on the demo tenant (RestBench TMDB's 54 tools plus the autotools food and weather
 * tools, seeded exactly as `npm start` does), with the SDK's own client:
 *
 *   node bench/run.mjs mcp-face [--skip-build] [--rounds=3]
 *
 * Tokens (js-tiktoken o200k_base, on the JSON text the client receives): what a chat client
 * spends to get usable tools for one step. Listing every demo tool as an MCP tool (name,
 * description, input schema: `GET /v1/export/tools?format=mcp`, the listing /mcp gives a routed tool)
 * against the four service tools' listing plus one `find_tools` answer, for each of RestBench's
 * 100 tasks (first step, k = 5).
 *
 * Latency: `find_tools` through the SDK client (one Streamable HTTP POST, answered as an SSE
 * stream) against `POST /v1/route` with the same task and k, interleaved in the same run, both
 * through Miniflare's dispatchFetch; `rounds` × 100 tasks each.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { getEncoding } from "js-tiktoken";
import { connectMcp } from "../test/helpers/mcp-client";
import { ADMIN_TOKEN, type TestService } from "../test/helpers/service";
import { startBenchService } from "./lib/bench-service";
import { int, machineLine, ms, summary, table } from "./lib/stats";

const K = 5;
const ORIGIN = "http://atc.test";

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

/** Seed the demo tenant with scripts/seed-demo.mjs, its fetch pointed at the service in workerd. */
async function seedDemoTenant(service: TestService): Promise<string> {
  const network = globalThis.fetch;
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(ORIGIN)) return network(input, init);
    return service.fetch(url.slice(ORIGIN.length), init);
  }) as typeof fetch;
  try {
    // Loaded at run time, not bundled: the script runs its own main when it is the entry file.
    const script = pathToFileURL(resolve("scripts/seed-demo.mjs")).href;
    const { seedDemo } = (await import(script)) as { seedDemo: (base: string, admin: string, state: string) => Promise<unknown> };
    const seeded = (await seedDemo(ORIGIN, ADMIN_TOKEN, ".bench-build/mcp-face-state")) as { key: string; summary: string[] };
    console.log(`demo tenant: ${seeded.summary.join("; ")}`);
    return seeded.key;
  } finally {
    globalThis.fetch = network;
  }
}

async function main(): Promise<void> {
  const rounds = Number(option("rounds", "3"));
  console.log(`MCP face on the demo tenant — ${machineLine()}`);
  const encoding = getEncoding("o200k_base");
  const tokens = (value: unknown): number => encoding.encode(JSON.stringify(value)).length;
  const { service } = await startBenchService();
  try {
    const key = await seedDemoTenant(service);
    const tasks = (JSON.parse(readFileSync("../shared/data/restbench-tmdb/tasks.json", "utf8")) as { query: string }[]).map((t) => t.query);
    const client = await connectMcp(service, key);

    // Every demo tool as an MCP tool, as the service exports the whole set (GET /v1/export/tools).
    const exported = await service.json<{ tools: unknown[] }>("GET", "/v1/export/tools?format=mcp", { key });
    if (exported.status !== 200) throw new Error(`export answered ${exported.status}`);
    const allTools = exported.body.tools;
    const serviceListing = (await client.listTools()).tools;

    const stepTokens: number[] = [];
    const usable: number[] = [];
    for (const task of tasks) {
      const answer = CallToolResultSchema.parse(await client.callTool({ name: "find_tools", arguments: { task, k: K } }, CallToolResultSchema));
      const text = answer.content[0]?.type === "text" ? answer.content[0].text : "";
      stepTokens.push(encoding.encode(text).length);
      usable.push((answer.structuredContent as { candidates: { inputSchema?: unknown }[] }).candidates.filter((c) => c.inputSchema !== undefined).length);
    }
    const steps = summary(stepTokens);
    const listAll = tokens({ tools: allTools });
    const listService = tokens({ tools: serviceListing });
    console.log(`\nTokens to get usable tools for one step (o200k_base, JSON text as received; ${tasks.length} RestBench tasks, k = ${K}):`);
    console.log(
      table(
        ["what the client reads", "tokens"],
        [
          [`tools/list of all ${allTools.length} demo tools as MCP tools`, int(listAll)],
          ["tools/list of the 4 service tools (once per session)", int(listService)],
          ["one find_tools answer, mean", int(steps.mean)],
          ["one find_tools answer, p50 / p99 / max", `${int(steps.p50)} / ${int(steps.p99)} / ${int(steps.max)}`],
          ["first step via find_tools (listing + mean answer)", int(listService + steps.mean)],
        ],
      ),
    );
    console.log(`usable candidates (with input schema) per answer: mean ${(usable.reduce((a, b) => a + b, 0) / usable.length).toFixed(2)} of ${K}`);
    console.log(
      `all tools / first step via find_tools: ${(listAll / (listService + steps.mean)).toFixed(1)}×; all tools / one more find_tools step: ${(listAll / steps.mean).toFixed(1)}×`,
    );

    // Latency, interleaved so both see the same machine load.
    const route: number[] = [];
    const find: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const task of tasks) {
        const t0 = performance.now();
        const rest = await service.fetch("/v1/route", {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ task, k: K }),
        });
        await rest.arrayBuffer();
        const t1 = performance.now();
        if (rest.status !== 200) throw new Error(`route answered ${rest.status}`);
        await client.callTool({ name: "find_tools", arguments: { task, k: K } }, CallToolResultSchema);
        const t2 = performance.now();
        route.push(t1 - t0);
        find.push(t2 - t1);
      }
    }
    const r = summary(route);
    const f = summary(find);
    console.log(`\nLatency, ${rounds} × ${tasks.length} requests each, interleaved (Miniflare dispatchFetch, first step, k = ${K}):`);
    console.log(
      table(
        ["", "p50", "p99", "mean"],
        [
          ["POST /v1/route", ms(r.p50), ms(r.p99), ms(r.mean)],
          ["find_tools (SDK client, /mcp)", ms(f.p50), ms(f.p99), ms(f.mean)],
          ["ratio", `${(f.p50 / r.p50).toFixed(2)}×`, `${(f.p99 / r.p99).toFixed(2)}×`, `${(f.mean / r.mean).toFixed(2)}×`],
        ],
      ),
    );
    await client.close();
  } finally {
    await service.dispose();
  }
}

await main();
