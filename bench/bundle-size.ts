/**
 * What a deploy uploads: the Worker bundle of `wrangler deploy --dry-run --env production` (as
 * `npm run build` makes it), its raw and gzip size as wrangler reports them (the figure the plan's
 * Worker size limit applies to), each module of it, the packages and folders that weigh most in
 * its main module, and beside it the static assets (uploaded separately, not counted in the
 * Worker's size). Then what an isolate pays to start it: the CPU of evaluating the bundle in
 * workerd, from the profile `wrangler check startup` takes of it (busy samples; median of
 * `--startup-rounds`, default 5; on this machine's CPU, not Cloudflare's).
 *
 *   npm run bench -- bundle-size [--startup-rounds=5]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";

const KiB = 1024;
const kib = (bytes: number) => `${(bytes / KiB).toFixed(0).padStart(6)} KiB`;
const gzipped = (bytes: Buffer) => gzipSync(bytes, { level: 9 }).length;

interface Metafile {
  outputs: Record<string, { entryPoint?: string; inputs: Record<string, { bytesInOutput: number }> }>;
}

const outdir = mkdtempSync(join(tmpdir(), "atc-bundle-size-"));
try {
  const result = spawnSync(
    "node_modules/.bin/wrangler",
    ["deploy", "--dry-run", "--env", "production", "--outdir", outdir, "--metafile", join(outdir, "meta.json")],
    {
      encoding: "utf8",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_HIDE_BANNER: "true", CI: "true", NO_COLOR: "1" },
    },
  );
  if (result.status !== 0) throw new Error(`wrangler failed:\n${result.stdout}\n${result.stderr}`);
  const total = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(result.stdout);
  console.log(`Worker bundle (wrangler's figures): ${total?.[1] ?? "?"} KiB raw, ${total?.[2] ?? "?"} KiB gzip\n`);

  console.log("modules of the bundle (raw, gzip -9 alone):");
  for (const name of readdirSync(outdir).filter((f) => !/\.(map|md)$/.test(f) && f !== "meta.json")) {
    const bytes = readFileSync(join(outdir, name));
    console.log(`  ${kib(bytes.length)} ${kib(gzipped(bytes))}  ${name.replace(/^[0-9a-f]{40}-/, "")}`);
  }

  const meta = JSON.parse(readFileSync(join(outdir, "meta.json"), "utf8")) as Metafile;
  const main = Object.values(meta.outputs).find((output) => output.entryPoint !== undefined);
  const byPart = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(main?.inputs ?? {})) {
    const part = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input.split("/").slice(0, 2).join("/");
    byPart.set(part, (byPart.get(part) ?? 0) + bytesInOutput);
  }
  console.log("\nlargest parts of the main module (raw):");
  for (const [part, bytes] of [...byPart].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${kib(bytes)}  ${part}`);

  const assets = "functions/http/console/generated/static";
  const files = listFiles(assets);
  const raw = files.reduce((sum, file) => sum + statSync(file).size, 0);
  const gzip = files.reduce((sum, file) => sum + gzipped(readFileSync(file)), 0);
  console.log(`\nstatic assets (${assets}, not in the Worker): ${files.length} files, ${kib(raw).trim()} raw, ${kib(gzip).trim()} gzip`);
  for (const file of files) console.log(`  ${kib(statSync(file).size)}  /${relative(assets, file)}`);

  console.log(`\n${startupLine(outdir, Number(/^--startup-rounds=(\d+)$/.exec(process.argv[2] ?? "")?.[1] ?? 5))}`);
} finally {
  rmSync(outdir, { recursive: true, force: true });
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
  timeDeltas: number[];
}

/** Median busy CPU (ms) of the Worker's startup in workerd over `rounds` isolates, as a line. */
function startupLine(dir: string, rounds: number): string {
  const bundle = join(dir, "worker.bundle");
  run(["deploy", "--dry-run", "--env", "production", "--outfile", bundle]);
  const busy: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    const profile = join(dir, `startup-${i}.cpuprofile`);
    run(["check", "startup", "--worker", bundle, "--outfile", profile]);
    const ms = busyMs(JSON.parse(readFileSync(profile, "utf8")) as CpuProfile);
    // A profile without samples (the profiler started after the import, seen on a loaded machine) says nothing.
    if (ms > 0) busy.push(ms);
  }
  busy.sort((a, b) => a - b);
  const median = busy[Math.floor(busy.length / 2)] ?? Number.NaN;
  return `startup in workerd (wrangler check startup, busy CPU): median ${median.toFixed(0)} ms of ${busy.length} isolates profiled (${busy.map((ms) => ms.toFixed(0)).join(", ")} ms)`;
}

/** Time in samples of anything but idleness: compiling and evaluating the bundle, and collecting garbage. */
function busyMs(profile: CpuProfile): number {
  const idle = new Set(profile.nodes.filter((node) => ["(idle)", "(root)"].includes(node.callFrame.functionName)).map((node) => node.id));
  let total = 0;
  profile.samples.forEach((id, i) => {
    if (!idle.has(id)) total += (profile.timeDeltas[i] ?? 0) / 1000;
  });
  return total;
}

function run(args: string[]): void {
  const result = spawnSync("node_modules/.bin/wrangler", args, {
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_HIDE_BANNER: "true", CI: "true", NO_COLOR: "1" },
  });
  if (result.status !== 0) throw new Error(`wrangler ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)]));
}
