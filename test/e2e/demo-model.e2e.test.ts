import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startService, stopService, type Started } from "../helpers/npm-start";
import { readmeExamples } from "../helpers/readme-examples";

/**
 * `npm start -- --demo-model`: the README's run and Play2Prompt examples, with the requests the
 * README (and the docs pages) write, answered end to end by the demo model over the demo world;
 * each run's answer is checked, not only its status. Then the same state started without the
 * flag: no model at all, so a run answers 503 not-configured.
 */

const root = resolve(import.meta.dirname, "../..");
const pages = [
  "README.md",
  ...(existsSync(join(root, "docs"))
    ? readdirSync(join(root, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => join("docs", f))
    : []),
];
const commands = pages.flatMap((page) => readmeExamples(readFileSync(join(root, page), "utf8")).map((e) => e.command));

/** The JSON body of a documented curl command (`-d '{…}'`). */
function bodyOf(command: string): Record<string, unknown> {
  const body = /-d '(\{[^']*\})'/.exec(command)?.[1];
  if (body === undefined) throw new Error(`no JSON body in ${command}`);
  return JSON.parse(body) as Record<string, unknown>;
}

const runBodies = commands.filter((c) => /-X POST \$BASE\/v1\/runs\b/.test(c)).map(bodyOf);
const optimizeCommands = commands.filter((c) => /\/v1\/tools\/\w+\/optimize/.test(c));

/** The true answers in the demo world (kv-seed/world/demo-records) to the documented run tasks. */
const EXPECTED: Record<string, unknown> = {
  "How many movies has Bradley Cooper acted in?": "18 movies",
  "Which movies did Christopher Nolan direct?": [
    "Following",
    "Memento",
    "Insomnia",
    "Batman Begins",
    "The Prestige",
    "The Dark Knight",
    "Inception",
    "The Dark Knight Rises",
    "Interstellar",
    "Dunkirk",
    "Tenet",
    "Oppenheimer",
  ],
};

interface RunRecord {
  status: string;
  answer?: { answer?: unknown; note?: string };
  modelCalls: { model?: string }[];
}

describe("npm start -- --demo-model", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "atc-demo-model-"));
  let service: Started | undefined;
  let base = "";
  let key = "";
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    base = `http://127.0.0.1:${await freePort()}`;
    service = await startService(Number(new URL(base).port), stateDir, "demo-model");
    key = readFileSync(join(stateDir, "demo-api-key"), "utf8").trim();
  }, 150_000);

  afterAll(async () => {
    await stopService(service);
    rmSync(stateDir, { recursive: true, force: true });
  }, 30_000);

  it("says at start that the demo model answers", () => {
    expect(service?.output()).toMatch(/model: the demo model at http:\/\/127\.0\.0\.1:\d+\/v1, a scripted stand-in/);
  });

  it("answers every documented run task correctly, saying it is the demo model", async () => {
    expect(runBodies.length).toBeGreaterThanOrEqual(2);
    for (const body of runBodies) {
      const task = String(body["task"]);
      expect(Object.keys(EXPECTED), `a documented run task without an expected answer here: ${task}`).toContain(task);
      const response = await call("POST", "/v1/runs", body);
      expect(response.status, task).toBe(201);
      const run = (await response.json()) as RunRecord;
      expect(run.status, task).toBe("succeeded");
      expect(run.answer?.answer, task).toEqual(EXPECTED[task]);
      expect(run.answer?.note).toMatch(/demo model/);
      expect(run.modelCalls.map((c) => c.model)).toEqual(run.modelCalls.map(() => "demo-model"));
    }
  }, 180_000);

  it("runs the documented Play2Prompt job to its end", async () => {
    expect(optimizeCommands.length).toBeGreaterThanOrEqual(1);
    for (const command of optimizeCommands) {
      const path = /\$BASE(\/v1\/tools\/\w+\/optimize)/.exec(command)?.[1] ?? "";
      const started = await call("POST", path, bodyOf(command));
      expect(started.status).toBe(202);
      const { jobId } = (await started.json()) as { jobId: string };
      let job: { status: string; result?: unknown } = { status: "queued" };
      for (let i = 0; i < 20 && (job.status === "queued" || job.status === "running"); i++)
        job = (await (await call("GET", `/v1/jobs/${jobId}?wait=30`)).json()) as typeof job;
      expect(job.status, JSON.stringify(job).slice(0, 800)).toBe("succeeded");
      // The registered description names no parameter; the demo's base model needs them named.
      expect(job.result).toMatchObject({ improved: true, bestScore: 1 });
    }
  }, 600_000);

  it("is never used unless asked for: the same state without the flag has no model", async () => {
    await stopService(service);
    service = await startService(Number(new URL(base).port), stateDir, "none");
    expect(service.output()).not.toContain("demo model");
    const response = await call("POST", "/v1/runs", runBodies[0]);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ type: expect.stringMatching(/not-configured$/) });
  }, 180_000);
});
