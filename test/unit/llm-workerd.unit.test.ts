import { Miniflare, type Request as MfRequest } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScriptedModel } from "../helpers/scripted-model";
import { bundleTestWorker } from "../helpers/workerd-bundle";

/**
 * functions/llm must run inside workerd: bundle it the way a Worker is bundled, run it in
 * Miniflare, and let it reach the scripted model through workerd's own fetch (outboundService)
 * and through an injected service binding's fetch.
 */

const WORKER_SOURCE = `
import { createModelClient } from "./functions/llm/client";
import { resolveModelConfig } from "./functions/llm/config";
import { modelCallOf } from "./functions/llm/errors";
import { UsageLedger } from "./functions/llm/usage";

export default {
  async fetch(request, env) {
    const resolved = resolveModelConfig(env);
    if (!resolved.ok) return Response.json(resolved, { status: 503 });
    const injected = new URL(request.url).pathname === "/injected";
    const ledger = new UsageLedger();
    const client = createModelClient(resolved.config, {
      ledger,
      maxRetries: 0,
      ...(injected ? { fetch: (input, init) => env.MODEL.fetch(input, init) } : {}),
    });
    const chat = await client.chat({ messages: [{ role: "user", content: "ping from workerd" }], purpose: "ping" });
    const embedded = await client.embed(["tool one", "tool two"], { purpose: "index" });
    let failure = null;
    try {
      await client.chat({ messages: [{ role: "user", content: "please fail" }], purpose: "fail" });
    } catch (e) {
      failure = { isModelCallError: modelCallOf(e) !== undefined, kind: modelCallOf(e)?.kind, status: modelCallOf(e)?.status, message: e.message };
    }
    return Response.json({ chat, dims: embedded.vectors.map((v) => v.length), failure, total: ledger.total });
  },
};
`;

const API_KEY = "sk-workerd-test-0123456789abcdef";
const scripted = createScriptedModel({
  apiKey: API_KEY,
  embeddingDimensions: 24,
  rules: [
    { user: "fail", answer: { status: 429 } },
    { user: "ping", answer: (req) => ({ text: `pong (${req.headers["user-agent"] ?? "no agent"})` }) },
  ],
});

let mf: Miniflare | undefined;

beforeAll(async () => {
  const script = await bundleTestWorker(WORKER_SOURCE, "llm-worker.js");
  mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: "2026-04-20",
    compatibilityFlags: ["nodejs_compat"],
    bindings: {
      MODEL_BASE_URL: "http://model.atc.test/v1",
      MODEL_API_KEY: API_KEY,
      MODEL_NAME: "scripted-chat",
      EMBEDDING_MODEL: "scripted-embed",
    },
    outboundService: (request: MfRequest) => scripted.handle(request),
    serviceBindings: { MODEL: (request: MfRequest) => scripted.handle(request) },
  });
  // Startup (several seconds on a busy machine) belongs to the hook, not to the first test.
  await mf.ready;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
});

async function run(path: string): Promise<unknown> {
  if (!mf) throw new Error("Miniflare did not start");
  const response = await mf.dispatchFetch(`http://worker.test${path}`);
  expect(response.status).toBe(200);
  return response.json();
}

describe("functions/llm inside workerd", () => {
  it.each(["/global", "/injected"])("chat, embed, usage and typed errors work (%s fetch)", async (path) => {
    scripted.reset();
    const result = await run(path);
    expect(result).toMatchObject({
      chat: { content: expect.stringMatching(/^pong \(OpenAI\/JS /), model: "scripted-chat", purpose: "ping", toolCalls: [] },
      dims: [24, 24],
      failure: { isModelCallError: true, kind: "rate_limited", status: 429 },
      total: { calls: 3, failedCalls: 1 },
    });
    expect(JSON.stringify(result)).not.toContain(API_KEY);
    expect(scripted.requests.map((r) => [r.kind, r.status, r.hadAuthorization])).toEqual([
      ["chat", 200, true],
      ["embeddings", 200, true],
      ["chat", 429, true],
    ]);
    expect(scripted.requests[0]?.url).toBe("http://model.atc.test/v1/chat/completions");
  });
});
