/**
 * A tool whose host does not resolve, called by MCP clients (issue 32, item 5):
 *
 *   npm run bench -- unresolvable-host [--conversations=300] [--sessions=4]
 *
 * Starts `npm start` (its own port and state directory), raises the demo tenant's rates (the
 * conversations would outrun them), imports a tool on a `.invalid` host and one on a plausible
 * name that does not exist (a typo's: `api.<20 random letters>.com`, which the program host looks
 * up with this machine's resolver) into it, and runs `--conversations` MCP conversations with the
 * official SDK client, `--sessions` at a time: each connects, calls that tool through `call_tool`,
 * and closes. Then the same for a tool of the simulated world. Printed: how each conversation ended (the
 * call's `error.cause`, `ok`, or what else came back) and the workerd blocks in `npm start`'s
 * output (`DNS lookup failed`, `restarted mid-request`, `overloaded: connect()`). No model is
 * needed; only loopback addresses are contacted, a `.invalid` name is never looked up, and the
 * typo's name is looked up once a minute by the program host (a DNS query, when the machine has a
 * resolver) and never by workerd.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { freePort } from "./lib/free-port";
import { startNpmStart, stopNpmStart, type StartedService } from "./lib/soak-service";
import { machineLine } from "./lib/stats";

function option(name: string, fallback: string): number {
  const prefix = `--${name}=`;
  return Number(process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback);
}

const conversations = option("conversations", "300");
const sessions = option("sessions", "4");
const UNRESOLVABLE = { name: "benchNowhere", method: "GET", url: "https://bench-nowhere.invalid/things" };
const TYPO_HOST = `api.${Array.from(randomBytes(20), (byte) => String.fromCharCode(97 + (byte % 26))).join("")}.com`;
const TYPO = { name: "benchTypo", method: "GET", url: `https://${TYPO_HOST}/things` };
const CALLS = {
  unresolvable: { name: UNRESOLVABLE.name, arguments: {} },
  "typo host": { name: TYPO.name, arguments: {} },
  "simulated world": { name: "getSearchPerson", arguments: { query: "Tom Hanks" } },
};

/** One conversation: connect, one `call_tool`, close; how it ended, in a few words. */
async function conversation(service: StartedService, call: { name: string; arguments: Record<string, unknown> }): Promise<string> {
  const client = new Client({ name: "atc-bench", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${service.baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${service.demoKey}` } },
  });
  try {
    await client.connect(transport);
    const result = await client.callTool({ name: "call_tool", arguments: call });
    const content = result.structuredContent as { ok?: boolean; error?: { cause?: string; kind?: string } } | undefined;
    if (content?.ok === true) return "ok";
    if (content?.error !== undefined) return `ok: false, ${content.error.cause === undefined ? `kind ${content.error.kind}` : `cause ${content.error.cause}`}`;
    return `other answer: ${JSON.stringify(result).slice(0, 120)}`;
  } catch (error) {
    return `failed: ${String(error).slice(0, 120)}`;
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function runAll(service: StartedService, call: { name: string; arguments: Record<string, unknown> }): Promise<Map<string, number>> {
  const outcomes = new Map<string, number>();
  let started = 0;
  const session = async () => {
    while (started < conversations) {
      started += 1;
      const outcome = await conversation(service, call);
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: sessions }, session));
  return outcomes;
}

const count = (log: string, pattern: RegExp) => (log.match(pattern) ?? []).length;

const stateDir = mkdtempSync(join(tmpdir(), "atc-unresolvable-"));
console.log(`unresolvable host: ${conversations} MCP conversations per tool, ${sessions} at a time\n${machineLine()}`);
const service = await startNpmStart(process.cwd(), {
  port: await freePort(),
  inspectorPort: await freePort(),
  stateDir,
  modelBaseUrl: "http://127.0.0.1:9/v1", // no model is called
});
try {
  const send = async (method: string, path: string, body: unknown) => {
    const headers = { authorization: `Bearer ${service.demoKey}`, "content-type": "application/json" };
    const answer = await fetch(`${service.baseUrl}${path}`, { method, headers, body: JSON.stringify(body) });
    if (!answer.ok) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
  };
  // The conversations outrun the demo tenant's default rates; what is measured is the answers, not the quotas.
  const roomy = { perSecond: 1_000, burst: 10_000 };
  await send("PUT", "/v1/settings/quotas", { rates: { reads: roomy, writes: roomy, toolCalls: roomy } });
  await send("POST", "/v1/tools/import", { format: "list", tools: [UNRESOLVABLE, TYPO], source: "bench" });
  for (const [label, call] of Object.entries(CALLS)) {
    const before = service.output();
    const t0 = performance.now();
    const outcomes = await runAll(service, call);
    const after = service.output();
    const since = (pattern: RegExp) => count(after, pattern) - count(before, pattern);
    console.log(`\n${label} (${call.name}): ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    for (const [outcome, n] of [...outcomes].sort((a, b) => b[1] - a[1])) console.log(`  ${n} × ${outcome}`);
    console.log(
      `  npm start's log meanwhile: ${since(/DNS lookup failed/g)} "DNS lookup failed", ${since(/restarted mid-request/g)} "restarted mid-request", ${since(/overloaded: connect\(\)/g)} "overloaded: connect()"`,
    );
  }
} finally {
  await stopNpmStart(service);
  rmSync(stateDir, { recursive: true, force: true });
}
