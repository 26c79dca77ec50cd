import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { PROGRAM_HOST_SECRET_HEADER } from "../../functions/common/program-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcp } from "../helpers/mcp-client";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

/**
 * Issue 32, item 5: a tool whose host name does not resolve answers `ok: false` with cause
 * `name_lookup`, disturbs no other call, and leaves no workerd stack in the log. The service runs
 * on workerd's own network (names are looked up, every connection is refused), so a name handed
 * to the platform's fetch really goes to workerd's resolver. `.invalid` never resolves (RFC 6761).
 * A plausible name that merely does not exist (a typo's) is looked up first through the program
 * host, with this machine's resolver, which answers it definitively (ENOTFOUND; checked below).
 */

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;
const SESSIONS = 4;
const ROUNDS = 4;
/** A name that could exist and does not: 20 random letters under .com. */
const TYPO_HOST = `api.${Array.from(randomBytes(20), (byte) => String.fromCharCode(97 + (byte % 26))).join("")}.com`;

let service: TestService;
let tenant: { id: string; key: string };
let runtimeLog = "";
const clients: Client[] = [];

beforeAll(async () => {
  service = await startService({ lookupOnlyNetwork: true, onRuntimeOutput: (text) => (runtimeLog += text) });
  tenant = await createTenant(service, "lookups");
  const tools = [
    { name: "nowhere", method: "GET", url: "https://tool-host.invalid/things" },
    { name: "typo", method: "GET", url: `https://${TYPO_HOST}/things` },
  ];
  expect((await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools, source: "lookups" } })).status).toBe(200);
  const world = { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb`, source: "tmdb" };
  expect((await service.json("POST", "/v1/tools/import", { key: tenant.key, body: world })).status).toBe(200);
  for (let i = 0; i < SESSIONS; i += 1) clients.push(await connectMcp(service, tenant.key));
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await service.dispose();
});

/** The program host's /resolve, as the service asks it. */
async function askResolver(host: string, secret: string | undefined): Promise<Response> {
  const programHost = service.programHost;
  if (programHost === undefined) throw new Error("no program host");
  return fetch(`http://${programHost.address}/resolve?host=${encodeURIComponent(host)}`, {
    headers: secret === undefined ? {} : { [PROGRAM_HOST_SECRET_HEADER]: secret },
  });
}

type CallResult = { ok: boolean; error?: { kind: string; cause?: string; message: string } };

/** One MCP `call_tool` of a registered tool: the safe-call result, or what else came back. */
async function mcpCall(client: Client, name: string, args: Record<string, unknown>): Promise<CallResult | string> {
  try {
    const result = CallToolResultSchema.parse(await client.callTool({ name: "call_tool", arguments: { name, arguments: args } }));
    const content = result.structuredContent as CallResult | undefined;
    return content !== undefined && typeof content.ok === "boolean" ? content : JSON.stringify(result).slice(0, 300);
  } catch (error) {
    return `threw ${String(error)}`;
  }
}

describe("a tool whose host does not resolve", () => {
  it("has the program host answer lookups with this machine's resolver, only with the secret", async () => {
    expect((await askResolver(TYPO_HOST, undefined)).status).toBe(403);
    expect((await askResolver(TYPO_HOST, "wrong-secret-0123456789")).status).toBe(403);
    // This machine's resolver must answer the typo definitively, or the calls below prove nothing.
    expect(await (await askResolver(TYPO_HOST, service.programHost?.secret)).json()).toEqual({ resolves: false });
    expect(await (await askResolver("localhost", service.programHost?.secret)).json()).toMatchObject({ resolves: true, addresses: expect.any(Array) });
  });

  it("answers name_lookup to every concurrent call, every call of the simulated world succeeds, and workerd logs no stack", async () => {
    const conversation = async (client: Client) => {
      const answers: { tool: string; answer: CallResult | string }[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const [nowhere, typo, world] = await Promise.all([
          mcpCall(client, "nowhere", {}),
          mcpCall(client, "typo", {}),
          mcpCall(client, "getSearchPerson", { query: "Tom Hanks" }),
        ]);
        answers.push({ tool: "nowhere", answer: nowhere }, { tool: "typo", answer: typo }, { tool: "world", answer: world });
      }
      return answers;
    };
    const rest = Array.from({ length: SESSIONS }, (_, i) => (i % 2 === 0 ? "nowhere" : "typo")).map(async (tool) => {
      const called = await service.json<CallResult>("POST", `/v1/tools/${tool}/call`, { key: tenant.key, body: { arguments: {} } });
      return { tool, answer: called.status === 200 ? called.body : `HTTP ${called.status} ${JSON.stringify(called.body)}` };
    });
    const answers = (await Promise.all([...clients.map(conversation), ...rest])).flat();

    const unresolvable = answers.filter((a) => a.tool === "nowhere").map((a) => a.answer);
    expect(unresolvable).toHaveLength(SESSIONS * ROUNDS + SESSIONS / 2);
    for (const answer of unresolvable) {
      expect(answer).toMatchObject({ ok: false, error: { kind: "network", cause: "name_lookup", message: expect.stringContaining("tool-host.invalid") } });
    }
    const typos = answers.filter((a) => a.tool === "typo").map((a) => a.answer);
    expect(typos).toHaveLength(SESSIONS * ROUNDS + SESSIONS / 2);
    for (const answer of typos) {
      expect(answer).toMatchObject({
        ok: false,
        error: { kind: "network", cause: "name_lookup", message: expect.stringContaining(`"${TYPO_HOST}" does not resolve`) },
      });
    }
    const world = answers.filter((a) => a.tool === "world").map((a) => a.answer);
    expect(world).toHaveLength(SESSIONS * ROUNDS);
    for (const answer of world) expect(answer).toMatchObject({ ok: true });
    expect(JSON.stringify(answers)).not.toMatch(/restarted|internal error/i);
    // No lookup block, and no internal error handed to a Worker (workerd logs each with a stack).
    expect(runtimeLog).not.toMatch(/DNS lookup failed|jsg\/util\.c\+\+/);
  }, 180_000);
});
