import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { Miniflare, type Request as MfRequest, Response as MfResponse } from "miniflare";

/**
 * functions/sandbox inside workerd, bundled by wrangler itself (as a deploy bundles it): the wasm
 * comes in as a compiled module through `./workerd-wasm`, and tools reach the outside through
 * workerd's own fetch (answered here, and recorded in `outbound`). Used by the sandbox's workerd
 * tests and by `npm run bench -- sandbox-calibration`.
 */

const DIR = resolve(".test-build/sandbox-worker");
const SANDBOX = resolve("functions/sandbox");

const WORKER_SOURCE = `
import { executeProgram, loadQuickJs } from ${JSON.stringify(`${SANDBOX}/index`)};
import quickjsWasm from ${JSON.stringify(`${SANDBOX}/workerd-wasm`)};

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/ping") return new Response("pong");
    const body = await request.json();
    const engine = await loadQuickJs(quickjsWasm);
    const started = performance.now();
    let firstCall;
    const result = await executeProgram(body.source, {
      engine,
      tools: ["echo", "remote"],
      ...(body.options ?? {}),
      callTool: async (name, args) => {
        firstCall ??= performance.now() - started;
        if (name === "echo") return args;
        const response = await fetch("http://tools.test/remote", { method: "POST", body: JSON.stringify(args) });
        return response.json();
      },
    });
    return Response.json({ result, firstCallMs: firstCall ?? null });
  },
};
`;

const WRANGLER_CONFIG = `
name = "sandbox-worker"
main = "worker.js"
compatibility_date = "2026-04-20"
compatibility_flags = ["nodejs_compat"]
`;

export interface SandboxReply {
  result: { ok: boolean; answer?: unknown; error?: { kind: string; message: string }; stats: { interruptChecks: number; durationMs: number } };
  /** Inside the Worker: from the start of the run to its first tool call (null: no call). */
  firstCallMs: number | null;
}

export interface SandboxWorker {
  /** Run one program (`options`: RunOptions besides engine, tools, callTool); `ms` is the whole request. */
  execute(source: string, options?: Record<string, unknown>): Promise<{ reply: SandboxReply; ms: number }>;
  ping(): Promise<string>;
  /** Every request a tool made to the outside: `METHOD url body`. */
  outbound: string[];
  dispose(): Promise<void>;
}

export async function startSandboxWorker(): Promise<SandboxWorker> {
  mkdirSync(DIR, { recursive: true });
  writeFileSync(`${DIR}/worker.js`, WORKER_SOURCE);
  writeFileSync(`${DIR}/wrangler.toml`, WRANGLER_CONFIG);
  execFileSync("node_modules/.bin/wrangler", ["deploy", "--dry-run", "-c", `${DIR}/wrangler.toml`, "--outdir", `${DIR}/dist`], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" },
  });
  const scriptPath = existsSync(`${DIR}/dist/index.js`) ? `${DIR}/dist/index.js` : `${DIR}/dist/worker.js`;
  const outbound: string[] = [];
  const mf = new Miniflare({
    modules: true,
    scriptPath,
    // How the service's own tests load wrangler's output (test/helpers/service.ts).
    modulesRules: [{ type: "CompiledWasm", include: ["**/*.wasm"] }],
    compatibilityDate: "2026-04-20",
    compatibilityFlags: ["nodejs_compat"],
    outboundService: async (request: MfRequest) => {
      const text = await request.text();
      outbound.push(`${request.method} ${request.url} ${text}`);
      return new MfResponse(JSON.stringify({ remote: JSON.parse(text) }), { headers: { "content-type": "application/json" } });
    },
  });
  await mf.ready;
  return {
    outbound,
    async execute(source, options = {}) {
      const started = performance.now();
      const response = await mf.dispatchFetch("http://worker.test/run", { method: "POST", body: JSON.stringify({ source, options }) });
      if (response.status !== 200) throw new Error(`the sandbox worker answered ${response.status}: ${await response.text()}`);
      const reply = (await response.json()) as SandboxReply;
      return { reply, ms: performance.now() - started };
    },
    async ping() {
      return (await mf.dispatchFetch("http://worker.test/ping")).text();
    },
    async dispose() {
      await mf.dispose();
    },
  };
}
