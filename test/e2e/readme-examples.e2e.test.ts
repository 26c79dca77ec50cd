import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveLocally, type LocalModelServer } from "../helpers/local-model-server";
import { freePort, startService, stopService, type Started } from "../helpers/npm-start";
import { missingFigures, readmeExamples, type ReadmeExample } from "../helpers/readme-examples";
import { createScriptedModel } from "../helpers/scripted-model";

/**
 * Every shell example of README.md and of the docs guide (docs/README.md lists its pages in reading
 * order), run as written, in that order, in one bash session (as a reader pastes them into one
 * terminal), against `npm start` on a fresh state directory. Two things are
 * substituted, both local to this test: the port (8787 belongs to the reader's own `npm start`)
 * and the state directory holding the demo key. The model is the scripted one, served on
 * 127.0.0.1 like Ollama would be, reached through MODEL_ALLOW_LOOPBACK=true. Blocks marked
 * `remote` or `setup` are not run (see test/helpers/readme-examples.ts for the marks).
 */

const root = resolve(import.meta.dirname, "../..");

/** The guide's pages in reading order: the links of docs/README.md to pages beside it. */
function guidePages(): string[] {
  const index = readFileSync(join(root, "docs/README.md"), "utf8");
  return [...new Set([...index.matchAll(/\]\(([a-z0-9-]+\.md)\)/g)].map((m) => `docs/${m[1]}`))];
}

type Example = ReadmeExample & { file: string };
const examples: Example[] = ["README.md", ...guidePages()].flatMap((file) =>
  readmeExamples(readFileSync(join(root, file), "utf8")).map((example) => ({ ...example, file })),
);
const COMMAND_TIMEOUT_MS = 60_000;

/** One bash session; each example's output and HTTP statuses are collected up to a marker. */
class Shell {
  readonly #bash: ChildProcess;
  #stdout = "";
  #stderr = "";

  constructor(env: Record<string, string>) {
    // jq as the examples use it, from npm (test/helpers/bin/jq, WebAssembly), so no OS package is needed.
    const path = `${join(root, "test/helpers/bin")}:${process.env.PATH ?? ""}`;
    this.#bash = spawn("bash", ["--noprofile", "--norc"], { cwd: root, env: { ...process.env, ...env, PATH: path }, stdio: ["pipe", "pipe", "pipe"] });
    this.#bash.stdout?.on("data", (chunk: Buffer) => (this.#stdout += chunk.toString()));
    this.#bash.stderr?.on("data", (chunk: Buffer) => (this.#stderr += chunk.toString()));
    // Every HTTP status curl receives goes to stderr, where the test reads it; bodies stay on stdout.
    this.#bash.stdin?.write(`set -o pipefail\ncurl() { command curl -sS -w '%{stderr}HTTP_STATUS %{http_code}\\n' "$@"; }\n`);
  }

  async run(command: string, timeoutMs: number): Promise<{ rc: number; stdout: string; stderr: string; statuses: number[] }> {
    const marker = `__README_EXAMPLE_DONE_${Math.random().toString(36).slice(2)}`;
    this.#stdout = "";
    this.#stderr = "";
    this.#bash.stdin?.write(`${command}\necho "${marker} $?" >&2\n`);
    const deadline = Date.now() + timeoutMs;
    let done: RegExpExecArray | null = null;
    while ((done = new RegExp(`${marker} (\\d+)`).exec(this.#stderr)) === null) {
      if (Date.now() > deadline)
        throw new Error(`no answer within ${timeoutMs / 1000} s\nstdout: ${this.#stdout.slice(-1500)}\nstderr: ${this.#stderr.slice(-1500)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const stderr = this.#stderr.slice(0, done.index);
    const statuses = [...stderr.matchAll(/HTTP_STATUS (\d{3})/g)].map((m) => Number(m[1]));
    return { rc: Number(done[1]), stdout: this.#stdout, stderr: stderr.replace(/HTTP_STATUS \d{3}\n?/g, ""), statuses };
  }

  close(): void {
    this.#bash.kill("SIGKILL");
  }
}

function localised(command: string, base: string, stateDir: string): string {
  return command.replaceAll("http://127.0.0.1:8787", base).replaceAll(".wrangler/state", stateDir);
}

function describeExample(example: Example): string {
  const first = example.command.split("\n")[0] ?? "";
  return `${example.file}:${example.line} (${example.section}): ${first.length > 110 ? `${first.slice(0, 110)}…` : first}`;
}

describe("README and guide shell examples", () => {
  it("are found, and every block is either run or marked", () => {
    expect(guidePages().length).toBeGreaterThan(10);
    expect(examples.filter((e) => e.kind === "run").length).toBeGreaterThan(30);
    for (const example of examples) {
      // `$(cat big.json)` inside an argument breaks on large files (Argument list too long): bodies go in with -d @file.
      expect(example.command, describeExample(example)).not.toMatch(/-d\s+["'][^"']*\$\(cat /);
    }
  });

  it("reads the marks", () => {
    const parsed = readmeExamples(
      [
        "# S",
        "```sh",
        "curl $BASE/a   # → 404 gone",
        "curl -X POST $BASE/b \\",
        "  -d @x.json",
        "# → 202 {jobId}",
        "```",
        "```sh remote",
        "curl https://api.openai.com",
        "```",
      ].join("\n"),
    );
    expect(
      missingFigures(
        '{name:"getSearchMovie", view:"compact"|"required-only", kvKey:"p/<tenant>", count: 87, tokens: 1,234}',
        '{"name":"getSearchMovie","count":87,"tokens":1234}',
      ),
    ).toEqual([]);
    expect(missingFigures('{name:"getMovieMovieIdCredits…", count: 87}', '{"name":"getTv","count":88}')).toEqual(["getMovieMovieIdCredits", "count: 87"]);
    expect(parsed.map((e) => [e.line, e.kind, e.expectedStatuses])).toEqual([
      [3, "run", [404]],
      [4, "run", [202]],
      [9, "remote", []],
    ]);
    expect(() => readmeExamples("```sh remot\nx\n```")).toThrow(/unknown mark/);
  });
});

describe("README and guide shell examples against npm start", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "atc-readme-"));
  const model = createScriptedModel();
  const before = new Set(readdirSync(root));
  let modelServer: LocalModelServer;
  let service: Started | undefined;
  let shell: Shell;
  let base = "";

  beforeAll(async () => {
    scriptModel(model);
    modelServer = await serveLocally(model);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    service = await startService(port, stateDir, { baseUrl: modelServer.baseUrl });
    shell = new Shell({});
  }, 150_000);

  afterAll(async () => {
    shell?.close();
    await stopService(service);
    await modelServer?.close();
    // Files the examples wrote into the checkout (graph.svg, definition.json, …) go again.
    for (const name of readdirSync(root)) if (!before.has(name)) rmSync(join(root, name), { recursive: true, force: true });
    rmSync(stateDir, { recursive: true, force: true });
  }, 30_000);

  it("each runs as written and answers what the README says", async () => {
    const failures: string[] = [];
    for (const example of examples.filter((e) => e.kind === "run")) {
      let outcome: Awaited<ReturnType<Shell["run"]>>;
      try {
        outcome = await shell.run(localised(example.command, base, stateDir), COMMAND_TIMEOUT_MS);
      } catch (error) {
        failures.push(`${describeExample(example)}\n  ${String(error)}`);
        shell.close();
        shell = new Shell({});
        continue;
      }
      // README_TEST_LOG=file keeps every example's output, for looking at answers that passed.
      if (process.env.README_TEST_LOG)
        appendFileSync(process.env.README_TEST_LOG, `\n### ${describeExample(example)}\n${outcome.stdout.slice(0, 3000)}\n${outcome.stderr.slice(0, 1000)}`);
      const allowed = example.expectedStatuses.length > 0 ? example.expectedStatuses : undefined;
      const wrongStatus = outcome.statuses.filter((s) => (allowed === undefined ? s < 200 || s > 299 : !allowed.includes(s)));
      // The figures the README gives for the answer, where the command prints one (not into a variable or a file).
      const missing = outcome.stdout.trim() === "" ? [] : missingFigures(example.answer, outcome.stdout);
      if (missing.length > 0) failures.push(`${describeExample(example)}\n  says ${missing.join("; ")}, not printed:\n  ${outcome.stdout.slice(0, 800)}`);
      if (outcome.rc !== 0 || wrongStatus.length > 0) {
        failures.push(
          `${describeExample(example)}\n  exit ${outcome.rc}, HTTP ${outcome.statuses.join(", ") || "none"}` +
            `${allowed === undefined ? "" : ` (expected ${allowed.join(" or ")})`}\n  ${(outcome.stdout + outcome.stderr).slice(0, 800).replaceAll("\n", "\n  ")}`,
        );
      }
    }
    expect(failures, `${failures.length} README example(s) failed:\n\n${failures.join("\n\n")}`).toEqual([]);
  }, 600_000);

  it("a second npm start on the same state reuses the demo key instead of minting another", async () => {
    const keyFile = join(stateDir, "demo-api-key");
    const key = readFileSync(keyFile, "utf8").trim();
    const keysBefore = await listKeys(base, key);
    await stopService(service);
    service = await startService(Number(new URL(base).port), stateDir, { baseUrl: modelServer.baseUrl });
    expect(existsSync(keyFile)).toBe(true);
    expect(readFileSync(keyFile, "utf8").trim()).toBe(key);
    expect(service.output()).toContain(key);
    expect(await listKeys(base, key)).toEqual(keysBefore);
  }, 150_000);
});

async function listKeys(base: string, key: string): Promise<string[]> {
  const response = await fetch(`${base}/v1/keys`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await response.json()) as { keys: { id: string; revokedAt?: string | null }[] };
  return body.keys
    .filter((k) => !k.revokedAt)
    .map((k) => k.id)
    .sort();
}

/**
 * What the local model answers: programs for the README's run tasks (a real model writes these);
 * anything else (evaluator, tool play) gets a short plain answer, which those jobs handle as a
 * model that did not help.
 */
function scriptModel(model: ReturnType<typeof createScriptedModel>): void {
  const fence = (code: string) => `\`\`\`ts\n${code}\n\`\`\``;
  model.on({
    name: "movies of a person",
    match: (r) => /Query: How many movies has Bradley Cooper/.test(r.lastUserMessage),
    answer: {
      text: fence(
        [
          'const found = await tools.getSearchPerson({ query: "Bradley Cooper" });',
          "const credits = await tools.getPersonPersonIdMovieCredits({ person_id: found.results[0].id });",
          "return `${credits.cast.length} movies`;",
        ].join("\n"),
      ),
    },
  });
  model.on({
    name: "directed by",
    match: (r) => /Query: Which movies did Christopher Nolan direct/.test(r.lastUserMessage),
    answer: {
      text: fence(
        [
          'const found = await tools.getSearchPerson({ query: "Christopher Nolan" });',
          "const credits = await tools.getPersonPersonIdMovieCredits({ person_id: found.results[0].id });",
          'return credits.crew.filter((c) => c.job === "Director").map((c) => c.title);',
        ].join("\n"),
      ),
    },
  });
  model.on({ name: "anything else", answer: { text: "I cannot help with that." } });
}
