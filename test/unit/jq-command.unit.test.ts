import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/** The `jq` the examples test puts on PATH (test/helpers/bin/jq), run as the docs run it. */
const JQ = resolve("test/helpers/bin/jq");
const jq = (args: string[], input = ""): { status: number | null; stdout: string } => {
  const result = spawnSync(JQ, args, { input, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout };
};

describe("the examples' jq command (jq compiled to WebAssembly, from npm (jq-web))", () => {
  it("filters stdin, prints raw strings with -r and compact JSON with -c", () => {
    expect(jq(["-r", ".id"], '{"id":"job_1"}')).toEqual({ status: 0, stdout: "job_1\n" });
    expect(jq(["-c", "{count, tokens}"], '{"count":2,"tokens":{"count":9},"x":1}').stdout).toBe('{"count":2,"tokens":{"count":9}}\n');
  });

  it("reads a file named after the filter", () => {
    const dir = mkdtempSync(join(tmpdir(), "jq-"));
    writeFileSync(join(dir, "run.json"), '{"id":"run_7","status":"succeeded"}');
    expect(execFileSync(JQ, ["-r", ".id", join(dir, "run.json")], { encoding: "utf8" })).toBe("run_7\n");
  });

  it("gives -e's exit status: 1 for false or null, 0 otherwise", () => {
    expect(jq(["-e", '.status | IN("succeeded","failed")'], '{"status":"succeeded"}').status).toBe(0);
    expect(jq(["-e", '.status | IN("succeeded","failed")'], '{"status":"running"}').status).toBe(1);
    expect(jq(["-e", ".missing"], "{}").status).toBe(1);
  });

  it("fails on input that is not JSON", () => {
    expect(jq([".a"], "not json").status).not.toBe(0);
  });
});
