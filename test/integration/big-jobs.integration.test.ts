import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";
import { generatedDocument } from "../helpers/generated-openapi";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

/**
 * Big jobs never disturb routing (issue 42): while a background import of a generated YAML
 * document cuts and imports it in many slices of the tenant object's alarm, the importing tenant
 * and another tenant keep answering routes and progress polls about as fast as before the job,
 * and a long-poll answers within its `wait`. Before the job was sliced by counted pieces with a
 * macrotask between them, the cut ran in one go and a slice imported batches for up to 10 s
 * without handing the thread back: every request of the process waited behind it.
 */

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
const RESOURCES = 1_500;

let service: TestService;

beforeAll(async () => {
  service = await startService({
    // Small pieces, so this document (≈ 1 MB of YAML) needs many slices, as a 20 MB one does with the defaults.
    bindings: { IMPORT_URL_MAX_BYTES: "4000000", IMPORT_BATCH_OPERATIONS: "60", IMPORT_CUT_PIECE_BYTES: "16384", IMPORT_SLICE_PIECES: "4" },
    programHost: false,
  });
});
afterAll(async () => service.dispose());

interface Timed {
  ms: number;
  status: number;
}

async function timed(send: () => Promise<{ status: number }>): Promise<Timed> {
  const started = performance.now();
  const { status } = await send();
  return { ms: performance.now() - started, status };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.POSITIVE_INFINITY;
}

describe("a big background import beside routing", () => {
  it("leaves routes and progress polls of the importing tenant and of another tenant at their usual pace; a long-poll answers within its wait", async () => {
    const importer = await createTenant(service, "importer");
    const other = await createTenant(service, "bystander");
    for (const tenant of [importer, other]) {
      await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` } });
    }
    const route = (key: string) => () => service.json("POST", "/v1/route", { key, body: { task: "list movie genres", k: 3 } });
    const poll = (id: string) => () => service.json("GET", `/v1/jobs/${id}`, { key: importer.key });
    /** One round: a route of each tenant and a progress poll, all at once. */
    const round = async (jobId: string | undefined) =>
      Promise.all([
        timed(route(importer.key)),
        timed(route(other.key)),
        jobId === undefined ? timed(() => service.json("GET", "/v1/jobs", { key: importer.key })) : timed(poll(jobId)),
      ]);

    // The usual pace, measured here, on this machine, now.
    const before: Timed[] = [];
    for (let i = 0; i < 8; i += 1) before.push(...(await round(undefined)));

    const yamlText = stringifyYaml(generatedDocument(RESOURCES));
    const upload = await service.fetch("/v1/tools/import/upload?source=big", {
      method: "POST",
      headers: { authorization: `Bearer ${importer.key}`, "content-type": "application/yaml" },
      body: yamlText,
    });
    expect(upload.status).toBe(202);
    const { jobId } = (await upload.json()) as { jobId: string };

    const during: Timed[] = [];
    const phases = new Set<string>();
    let longPoll: { ms: number; waitMs: number } | undefined;
    for (;;) {
      during.push(...(await round(jobId)));
      if (longPoll === undefined) {
        const started = performance.now();
        const job = await service.json<{ status: string }>("GET", `/v1/jobs/${jobId}?wait=2`, { key: importer.key });
        longPoll = { ms: performance.now() - started, waitMs: job.body.status === "running" || job.body.status === "queued" ? 2_000 : 0 };
      }
      const job = await service.json<{ status: string; progress: { phase?: string } }>("GET", `/v1/jobs/${jobId}`, { key: importer.key });
      if (job.body.progress.phase !== undefined) phases.add(job.body.progress.phase);
      if (job.body.status === "succeeded" || job.body.status === "failed") {
        expect(job.body.status).toBe("succeeded");
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const usual = { median: median(before.map((t) => t.ms)), worst: Math.max(...before.map((t) => t.ms)) };
    const seen = { median: median(during.map((t) => t.ms)), worst: Math.max(...during.map((t) => t.ms)) };
    console.log(
      `before the job: ${before.length} requests, median ${usual.median.toFixed(0)} ms, worst ${usual.worst.toFixed(0)} ms; during it: ${during.length}, median ${seen.median.toFixed(0)} ms, worst ${seen.worst.toFixed(0)} ms; long-poll ?wait=2 answered in ${longPoll?.ms.toFixed(0)} ms; phases seen ${[...phases].join(", ")}`,
    );
    for (const request of during) expect(request.status).toBe(200);
    // The job was seen cutting and importing, so the requests above were sent while it ran.
    expect(phases).toContain("cutting");
    expect(phases).toContain("importing");
    // Generous bounds (a noisy shared machine): a few hundred ms over the usual pace, never seconds.
    expect(seen.median).toBeLessThan(usual.median + 300);
    expect(seen.worst).toBeLessThan(usual.worst + 1_500);
    expect(longPoll?.ms).toBeLessThan((longPoll?.waitMs ?? 0) + 1_000);
  }, 300_000);
});
