/**
 * Issue 45's "route p50 no worse": a first step's latency at 10,000 tools with every tool's learned
 * field full, against the service as it was when the issue was filed (today's learning: similar
 * earlier tasks' votes, no learned field), both serving the same tenant taught the same tasks.
 *
 *   node bench/run.mjs route-against-build --baseline=DIR [--size=10000] [--learned=8] [--seconds=60]
 *
 * DIR is another checkout of this repository with its node_modules (e.g. `git worktree add --detach
 * DIR 6a728e4 && cp -al node_modules DIR/`, 6a728e4 being main before the learned field); the bench
 * bundles that checkout's service as its own tests do and starts it beside this one, each in its
 * own workerd. Both get the route-throughput tenant (10,000 generated tools, ≈ 10 observed
 * successors each, quotas lifted, routing prepared), then every tool learns `learned` one-tool
 * trajectories' tasks through `POST /v1/graph/trajectories` (lib/learned-teaching.ts: here they
 * teach the learned field and the task memory, there the task memory), and this build's
 * calibration is made. Then for `seconds`, rounds of three first steps, one at each side in a
 * random order (seeded), each for a task not routed recently: the baseline build, this build with
 * `learning.fieldWeight` 0 (today's learning as it is now) and with 1 (the field full). Printed:
 * each side's p50 and p99 and the paired differences (lib/paired-difference.ts).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { startBenchService } from "./lib/bench-service";
import { benchQueries, type BenchTenant, bigTenant, liftQuotas, prepared, routeStep } from "./lib/bench-tenants";
import { calibrated, setFieldWeight, teachEveryTool } from "./lib/learned-teaching";
import { comparePaired, pairedLine } from "./lib/paired-difference";
import { machineLine, seededRandom, shuffle, summary } from "./lib/stats";
import { corpusItems, taskCycle, toolItems } from "./lib/tool-corpus";
import { startService, type TestService } from "../test/helpers/service";

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

const K = 8;

/** Bundles `dir`'s service with `dir`'s own test build (its test/helpers/global-setup.ts), in `dir`. */
async function bundleCheckout(dir: string): Promise<void> {
  const outfile = join(dir, ".bench-build", "bundle-service.mjs");
  await build({
    stdin: { contents: 'import bundle from "./test/helpers/global-setup";\nbundle();\n', resolveDir: dir, loader: "ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    outfile,
    logLevel: "warning",
  });
  const result = spawnSync(process.execPath, [outfile], { cwd: dir, stdio: "inherit" });
  if (result.status !== 0 || !existsSync(join(dir, ".test-build", "main"))) throw new Error(`bundling ${dir} failed`);
}

/** Starts `dir`'s bundled service: the helpers read the bundles from the working directory while the service starts. */
async function startCheckout(dir: string): Promise<TestService> {
  const here = process.cwd();
  process.chdir(dir);
  try {
    return await startService({ programHost: false });
  } finally {
    process.chdir(here);
  }
}

/** The route-throughput tenant, taught `perTool` tasks per tool, prepared and warm. */
async function taughtTenant(service: TestService, size: number, perTool: number, nextTask: () => string): Promise<{ tenant: BenchTenant; teachMs: number }> {
  const tenant = await bigTenant(service, size);
  await liftQuotas(service, tenant);
  await prepared(service, tenant);
  const taught = await teachEveryTool(service, tenant, toolItems(size, corpusItems()), perTool);
  await prepared(service, tenant);
  for (let i = 0; i < 100; i += 1) await routeStep(service, tenant, { task: nextTask(), k: K });
  return { tenant, teachMs: taught.ms };
}

type Side = "baseline" | "field off" | "field full";
const SIDES: readonly Side[] = ["baseline", "field off", "field full"];

async function main(): Promise<void> {
  const baselineDir = resolve(option("baseline", ""));
  if (option("baseline", "") === "" || !existsSync(join(baselineDir, "package.json"))) throw new Error("--baseline=DIR: a checkout of the baseline commit");
  const size = Number(option("size", "10000"));
  const perTool = Number(option("learned", "8"));
  const seconds = Number(option("seconds", "60"));
  const baselineCommit = spawnSync("git", ["-C", baselineDir, "log", "-1", "--format=%h %s"], { encoding: "utf8" }).stdout.trim();
  console.log(`Route against another build — ${machineLine()}`);
  console.log(`baseline            ${baselineCommit.slice(0, 100)}`);
  await bundleCheckout(baselineDir);
  const { service } = await startBenchService({ programHost: false });
  const baseline = await startCheckout(baselineDir);
  try {
    const nextTask = taskCycle(benchQueries(), seededRandom(size));
    const here = await taughtTenant(service, size, perTool, nextTask);
    const there = await taughtTenant(baseline, size, perTool, nextTask);
    const share = await calibrated(service, here.tenant, nextTask());
    console.log(
      `teaching            ${size * perTool} tasks on each: ${(here.teachMs / 1000).toFixed(1)} s here, ${(there.teachMs / 1000).toFixed(1)} s on the baseline; calibration gives the field ${share.learned} of fieldWeight`,
    );
    const times = new Map<Side, number[]>(SIDES.map((side) => [side, []]));
    const route = async (side: Side): Promise<number> => {
      if (side === "baseline") return (await routeStep(baseline, there.tenant, { task: nextTask(), k: K })).ms;
      await setFieldWeight(service, here.tenant, side === "field full" ? 1 : 0);
      return (await routeStep(service, here.tenant, { task: nextTask(), k: K })).ms;
    };
    const random = seededRandom(45);
    for (const until = performance.now() + seconds * 1000; performance.now() < until; )
      for (const side of shuffle([...SIDES], random)) times.get(side)?.push(await route(side));
    for (const side of SIDES) {
      const s = summary(times.get(side) ?? []);
      console.log(`${side.padEnd(20)}first step p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(1)} ms (${s.n} routes)`);
    }
    const of = (side: Side) => times.get(side) ?? [];
    console.log(`full vs baseline    ${pairedLine(comparePaired(of("field full"), of("baseline"), seededRandom(1)))}`);
    console.log(`full vs off         ${pairedLine(comparePaired(of("field full"), of("field off"), seededRandom(2)))}`);
    console.log(`off vs baseline     ${pairedLine(comparePaired(of("field off"), of("baseline"), seededRandom(3)))}`);
    console.log(`${seconds} s, one client, the three sides in a random order each round; ${machineLine()}`);
  } finally {
    await baseline.dispose();
    await service.dispose();
  }
}

await main();
