/**
 * ATC runs per second one tenant sustains when the model answers at once: the service's own
 * share of a run (routing-free candidate set, prompt, program isolate, two tool calls against the
 * simulated world, storing the run, learning from it), without the model's seconds.
 *
 *   node bench/run.mjs run-throughput [--skip-build] [--runs=60] [--in-flight=1,4,8]
 *
 * The service runs as the integration tests run it; the scripted model (test/helpers) answers
 * every "generate" request with the README's two-call program.
 */
import { existsSync, readFileSync } from "node:fs";
import buildBundles from "../test/helpers/global-setup";
import { createScriptedModel } from "../test/helpers/scripted-model";
import { createTenant, startService, WORLD_ORIGIN } from "../test/helpers/service";
import { machineLine, summary, table } from "./lib/stats";

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}
const runs = Number(option("runs", "60"));
const levels = option("in-flight", "1,4,8").split(",").map(Number);

if (!(process.argv.includes("--skip-build") && existsSync(".test-build/main"))) buildBundles();
const model = createScriptedModel();
const program = [
  'const found = await tools.getSearchPerson({ query: "Bradley Cooper" });',
  "const credits = await tools.getPersonPersonIdMovieCredits({ person_id: found.results[0].id });",
  "return `${credits.cast.length} movies`;",
].join("\n");
model.on({ name: "generate", match: (r) => r.lastUserMessage.includes("Query:"), answer: { text: `\`\`\`ts\n${program}\n\`\`\`` } });
model.on({ name: "evaluate", answer: { text: "[2, 2]" } });
const service = await startService({
  outbound: (request) => (new URL(request.url).hostname === "model.atc.test" ? model.handle(request) : new Response("no network", { status: 599 })),
});
const rows: string[][] = [];
try {
  const tenant = await createTenant(service, "throughput");
  const tmdb = JSON.parse(readFileSync("../shared/data/restbench-tmdb/openapi.json", "utf8")) as unknown;
  await service.json("POST", "/v1/tools/import", {
    key: tenant.key,
    body: { format: "openapi", source: "tmdb", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` },
  });
  const body = { task: "How many movies has Bradley Cooper acted in?", tools: ["getSearchPerson", "getPersonPersonIdMovieCredits"], maxAttempts: 1 };
  const once = async (): Promise<number> => {
    const t0 = performance.now();
    const answer = await service.json<{ status: string }>("POST", "/v1/runs", { key: tenant.key, body });
    if (answer.status !== 201 || answer.body.status !== "succeeded")
      throw new Error(`run failed: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < 5; i += 1) await once(); // warm-up: program isolate, wasm, caches
  for (const inFlight of levels) {
    const latencies: number[] = [];
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < runs) {
          next += 1;
          latencies.push(await once());
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const s = summary(latencies);
    rows.push([String(inFlight), String(latencies.length), (latencies.length / seconds).toFixed(1), `${s.p50.toFixed(0)} / ${s.p99.toFixed(0)} ms`]);
  }
} finally {
  await service.dispose();
}
console.log(machineLine());
console.log(table(["runs in flight", "runs", "runs/s", "run latency p50 / p99"], rows));
