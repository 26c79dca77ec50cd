/**
 * Every route answer as a digest, for changes that must not change any answer (a faster search,
 * a cheaper read): run it before and after, and compare the digests (or the files).
 *
 *   node bench/run.mjs route-answers [--skip-build] [--out=answers.jsonl]
 *
 * Three tenants through the HTTP API, as route-latency sets them up: StableToolBench operations at
 * 100 and 10,000 tools (with ≈ 10 observed successors per tool), and RestBench's TMDB OpenAPI
 * document (responses documented, so data flow and name lookups take part) with its tasks' gold
 * sequences as trajectories. For each, the same seeded requests: first steps for StableToolBench
 * queries or TMDB tasks, fused and graph later steps after a random tool, a step with a small
 * `maxTokens` and one with `include: ["prompt"]`, before and after an eviction (stored state read
 * back). Prints one sha256 over all bodies (status, content type and text), per tenant too.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { setUpTenant, startBenchService, tenantObject } from "./lib/bench-service";
import { corpusItems, readData, recordedTrajectories, syntheticWalks, toolItems } from "./lib/tool-corpus";
import { randomInt, seededRandom } from "./lib/stats";
import { createTenant, type TestService } from "../test/helpers/service";

const REQUESTS_PER_TENANT = 300;

interface Tenant {
  id: string;
  key: string;
  names: string[];
  tasks: string[];
}

async function stableToolBenchTenant(service: TestService, size: number, tasks: string[]): Promise<Tenant> {
  const items = toolItems(size, corpusItems());
  const names = items.map((i) => i.name);
  const setup = await setUpTenant(service, `answers-${size}`, items, [...recordedTrajectories(new Set(names)), ...syntheticWalks(names, 10, size)]);
  return { id: setup.tenantId, key: setup.key, names, tasks };
}

async function tmdbTenant(service: TestService): Promise<Tenant> {
  const { key } = await createTenant(service, "answers-tmdb");
  const imported = await service.json<{ created: string[] }>("POST", "/v1/tools/import", {
    key,
    body: { format: "openapi", source: "tmdb", serverUrl: "http://world.atc.test/tmdb", document: readData("restbench-tmdb/openapi.json") },
  });
  if (imported.status !== 200) throw new Error(`TMDB import: ${imported.status} ${JSON.stringify(imported.body).slice(0, 300)}`);
  const tasks = readData("restbench-tmdb/tasks.json") as { idx: number; query: string; solution: string[] }[];
  const trajectories = tasks.slice(0, 50).map((t) => ({ id: `tmdb:${t.idx}`, tools: t.solution, task: t.query }));
  const taught = await service.json("POST", "/v1/graph/trajectories", { key, body: { trajectories, unknownTools: "skip" } });
  if (taught.status !== 200) throw new Error(`TMDB trajectories: ${taught.status}`);
  // The signal weights are made off the request path (the alarm's): made here, so no answer depends on when the alarm ran.
  const object = await tenantObject(service, "answers-tmdb");
  for (let slice = 0; ; slice += 1) {
    const calibration = await service.json<{ stale: boolean }>("GET", "/v1/routing/calibration", { key });
    if (!calibration.body.stale) break;
    if (slice === 100) throw new Error("TMDB calibration not made in 100 alarm slices");
    await object.runAlarm();
  }
  return { id: "answers-tmdb", key, names: imported.body.created, tasks: tasks.map((t) => t.query) };
}

/** The seeded requests of one tenant, each answer as one line. */
async function answers(service: TestService, tenant: Tenant, seed: number): Promise<string[]> {
  const random = seededRandom(seed);
  const lines: string[] = [];
  const pick = <T>(list: readonly T[]): T => list[randomInt(random, list.length)] as T;
  const bodies = (): Record<string, unknown>[] => {
    const task = pick(tenant.tasks);
    const previousTool = pick(tenant.names);
    return [
      { task, k: 8 },
      { task, previousTool, k: 8 },
      { task, previousTool, k: 8, mode: "graph" },
      ...(random() < 0.1
        ? [
            { task, k: 5, maxTokens: 400 },
            { task, k: 5, include: ["prompt"] },
          ]
        : []),
    ];
  };
  const send = async (body: Record<string, unknown>): Promise<void> => {
    const response = await service.mf.dispatchFetch("http://atc.test/v1/route", {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    lines.push(
      JSON.stringify({ tenant: tenant.id, request: body, status: response.status, type: response.headers.get("content-type"), body: await response.text() }),
    );
  };
  for (let i = 0; i < REQUESTS_PER_TENANT / 2; i += 1) for (const body of bodies()) await send(body);
  // Read back from storage: the same kind of requests after an eviction.
  await (await tenantObject(service, tenant.id)).simulateEviction();
  for (let i = 0; i < REQUESTS_PER_TENANT / 2; i += 1) for (const body of bodies()) await send(body);
  return lines;
}

async function main(): Promise<void> {
  const out = process.argv.find((a) => a.startsWith("--out="))?.slice("--out=".length);
  const queries = (readData("stabletoolbench/retrieval_queries.json") as { query: string }[]).map((q) => q.query);
  const { service } = await startBenchService();
  const all: string[] = [];
  try {
    const tenants = [await stableToolBenchTenant(service, 100, queries), await stableToolBenchTenant(service, 10_000, queries), await tmdbTenant(service)];
    for (const [i, tenant] of tenants.entries()) {
      const lines = await answers(service, tenant, 1000 + i);
      all.push(...lines);
      const ok = lines.filter((l) => (JSON.parse(l) as { status: number }).status === 200).length;
      console.log(`${tenant.id}: ${lines.length} answers (${ok} with 200), sha256 ${createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, 16)}`);
    }
  } finally {
    await service.dispose();
  }
  console.log(`all: ${all.length} answers, sha256 ${createHash("sha256").update(all.join("\n")).digest("hex")}`);
  if (out !== undefined) writeFileSync(out, `${all.join("\n")}\n`);
}

await main();
