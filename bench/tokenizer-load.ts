/**
 * What an isolate pays for exact token counts (text/token-count.ts), measured in workerd: a Worker
 * that only counts tokens runs in fresh isolates (one Miniflare each); per isolate, the wall time of
 * its first count (which builds the o200k_base encoder) and of a later count of another text, and
 * its live heap (after a forced collection, through workerd's inspector) before and after. What the
 * whole service's startup pays is bundle-size's figure.
 *
 * `--profile`: where the first count's CPU goes (self time per function, sampled in the last isolate).
 *
 *   npm run bench -- tokenizer-load [--rounds=5] [--profile]
 */
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { analyse, type Profile, profiled, topLines } from "./lib/cpu-profile";
import { Inspector } from "./lib/inspector";
import { freePort } from "./lib/free-port";
import { machineLine } from "./lib/stats";

const profileFirstCount = process.argv.includes("--profile");
const rounds = Number(/^--rounds=(\d+)$/.exec(process.argv.find((a) => a.startsWith("--rounds=")) ?? "")?.[1] ?? 5);

const WORKER = `
import { countTokens } from "./functions/text/token-count.ts";
export default {
  async fetch(request) {
    const text = new URL(request.url).searchParams.get("text");
    return new Response(text === null ? "ok" : String(countTokens(text)));
  },
};`;

const FIRST_TEXT = '{"name":"search_movies","description":"Search for movies by title, year or genre."}';
const LATER_TEXT = "Später: 東京の天気は？ <|endoftext|> 1234567890 🚀 naïve café";

interface Round {
  firstMs: number;
  laterMs: number;
  pingMs: number;
  heapBeforeMiB: number;
  heapAfterMiB: number;
}

async function bundle(): Promise<string> {
  const result = await build({
    stdin: { contents: WORKER, resolveDir: process.cwd(), loader: "js" },
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    minify: false,
    write: false,
    logLevel: "warning",
  });
  return result.outputFiles[0]?.text ?? "";
}

async function timed(mf: Miniflare, query: string): Promise<number> {
  const started = performance.now();
  await (await mf.dispatchFetch(`http://tokens.test/${query}`)).text();
  return performance.now() - started;
}

async function liveHeapMiB(inspector: Inspector): Promise<number> {
  // workerd does not answer collectGarbage under its id; the session answers in order, so the
  // usage read next comes after the collection (as the soak reads it).
  inspector.post("HeapProfiler.collectGarbage");
  const { usedSize } = await inspector.send<{ usedSize: number }>("Runtime.getHeapUsage");
  return usedSize / 2 ** 20;
}

async function measureRound(script: string): Promise<Round> {
  const inspectorPort = await freePort();
  const mf = new Miniflare({ name: "tokens", modules: true, script, compatibilityDate: "2026-04-20", inspectorPort });
  try {
    await mf.ready;
    const inspector = await Inspector.open(new URL("/core:user:tokens", await mf.getInspectorURL()).href);
    try {
      await timed(mf, "");
      const pingMs = await timed(mf, "");
      const heapBeforeMiB = await liveHeapMiB(inspector);
      let firstMs = 0;
      const countFirst = async () => {
        firstMs = await timed(mf, `?text=${encodeURIComponent(FIRST_TEXT)}`);
      };
      if (profileFirstCount) printProfile(await profiled(inspector, PROFILE_INTERVAL_US, countFirst));
      else await countFirst();
      const laterMs = await timed(mf, `?text=${encodeURIComponent(LATER_TEXT)}`);
      return { firstMs, laterMs, pingMs, heapBeforeMiB, heapAfterMiB: await liveHeapMiB(inspector) };
    } finally {
      inspector.close();
    }
  } finally {
    await mf.dispose();
  }
}

const PROFILE_INTERVAL_US = 200;

function printProfile(profile: Profile): void {
  const { busyMs, self } = analyse(profile, [], PROFILE_INTERVAL_US);
  console.log(`  first count's profile: busy ${busyMs.toFixed(0)} ms; self time by function:`);
  for (const line of topLines(self, busyMs, 1, 12)) console.log(line);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function main(): Promise<void> {
  console.log(`Token counter in workerd, ${rounds} fresh isolates — ${machineLine()}`);
  const script = await bundle();
  console.log(`worker bundle: ${(script.length / 1024).toFixed(0)} KiB`);
  const all: Round[] = [];
  for (let i = 0; i < rounds; i += 1) {
    const round = await measureRound(script);
    all.push(round);
    console.log(
      `  isolate ${i + 1}: first count ${round.firstMs.toFixed(0)} ms, later count ${round.laterMs.toFixed(1)} ms, ` +
        `request without counting ${round.pingMs.toFixed(1)} ms; live heap ${round.heapBeforeMiB.toFixed(1)} → ${round.heapAfterMiB.toFixed(1)} MiB`,
    );
  }
  const of = (pick: (r: Round) => number) => median(all.map(pick));
  console.log(
    `median: first count ${of((r) => r.firstMs).toFixed(0)} ms (builds the encoder), later count ${of((r) => r.laterMs).toFixed(1)} ms, ` +
      `live heap ${of((r) => r.heapBeforeMiB).toFixed(1)} MiB before the first count, ${of((r) => r.heapAfterMiB).toFixed(1)} MiB after ` +
      `(+${of((r) => r.heapAfterMiB - r.heapBeforeMiB).toFixed(1)} MiB)`,
  );
}

await main();
