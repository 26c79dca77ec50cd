import { Failure } from "../../functions/common/failures";
import { describe, expect, it } from "vitest";
import { recordingNetwork, toolOn } from "../helpers/recording-network";
import { createModelClient, modelTransport } from "../../functions/llm/client";
import { resolveModelConfig, type ModelConfig } from "../../functions/llm/config";
import { modelCallOf } from "../../functions/llm/errors";
import { callMcpTool } from "../../functions/tools/mcp-call";
import { definitionsFromMcpTools } from "../../functions/tools/mcp-definitions";
import { callTool, guardedFetch, type NameResolver } from "../../functions/tools/safe-call";

/**
 * Issue 32 item 5, locally: a resolver given to the safe-call path (the program host's, in
 * npm start and tests) answers a name that does not exist before the platform's fetch is asked.
 */

const tool = toolOn;

/** A resolver that knows `existing` names, denies the rest, and records what it was asked. */
function resolverKnowing(...existing: string[]) {
  const asked: string[] = [];
  const resolveName: NameResolver = async (name) => {
    asked.push(name);
    return existing.includes(name);
  };
  return { asked, resolveName };
}

describe("a tool call with a local resolver", () => {
  it("answers name_lookup for a name the resolver denies, and nothing reaches the network", async () => {
    const network = recordingNetwork();
    const names = resolverKnowing();
    const result = await callTool(tool("https://API.tmdb-typo-xyz.com"), {}, { fetch: network.fetch, resolveName: names.resolveName });
    expect(result).toMatchObject({
      ok: false,
      error: {
        kind: "network",
        cause: "name_lookup",
        message: expect.stringMatching(/could not be looked up \(DNS\).*api\.tmdb-typo-xyz\.com.*does not resolve/),
      },
    });
    expect(names.asked).toEqual(["api.tmdb-typo-xyz.com"]);
    expect(network.asked).toEqual([]);
  });

  it("calls a name the resolver knows", async () => {
    const network = recordingNetwork();
    const result = await callTool(tool("https://api.example.com"), {}, { fetch: network.fetch, resolveName: resolverKnowing("api.example.com").resolveName });
    expect(result).toMatchObject({ ok: true, body: { fine: true } });
    expect(network.asked).toEqual(["https://api.example.com/x"]);
  });

  it.each([
    ["loopback", "127.0.0.1.nip.io", ["127.0.0.1"]],
    ["IPv6 loopback", "v6.localtest.example", ["::1"]],
    ["a private network", "intranet.example.com", ["93.184.216.34", "10.0.0.5"]],
    ["link-local (cloud metadata)", "metadata.example.com", ["169.254.169.254"]],
  ])("refuses a name that resolves to %s, and nothing reaches the network", async (_label, name, addresses) => {
    const network = recordingNetwork();
    const result = await callTool(tool(`http://${name}`), {}, { fetch: network.fetch, resolveName: async () => addresses });
    expect(result).toMatchObject({ ok: false, error: { kind: "blocked_destination", message: expect.stringContaining(`"${name}" resolves to`) } });
    expect(network.asked).toEqual([]);
  });

  it("calls a name that resolves to public addresses", async () => {
    const network = recordingNetwork();
    const result = await callTool(tool("https://api.example.com"), {}, { fetch: network.fetch, resolveName: async () => ["93.184.216.34"] });
    expect(result).toMatchObject({ ok: true, body: { fine: true } });
  });

  it("refuses a redirect to a name that resolves to loopback", async () => {
    const network = recordingNetwork("http://127.0.0.1.nip.io/admin");
    const resolveName: NameResolver = async (name) => (name === "127.0.0.1.nip.io" ? ["127.0.0.1"] : ["93.184.216.34"]);
    const result = await callTool(tool("https://api.example.com"), {}, { fetch: network.fetch, resolveName });
    expect(result).toMatchObject({ ok: false, error: { kind: "blocked_destination" } });
    expect(network.asked).toEqual(["https://api.example.com/x"]);
  });

  it.each<[string, NameResolver]>([
    ["cannot tell", async () => undefined],
    ["throws", async () => Promise.reject(new Error("resolver gone"))],
  ])("proceeds as before when the resolver %s", async (_, resolveName) => {
    const network = recordingNetwork();
    const result = await callTool(tool("https://api.example.com"), {}, { fetch: network.fetch, resolveName });
    expect(result.ok).toBe(true);
    expect(network.asked).toEqual(["https://api.example.com/x"]);
  });

  it("checks every redirect hop", async () => {
    const network = recordingNetwork("https://moved.typo-host.com/there");
    const names = resolverKnowing("api.example.com");
    const result = await callTool(tool("https://api.example.com"), {}, { fetch: network.fetch, resolveName: names.resolveName });
    expect(result).toMatchObject({
      ok: false,
      error: { kind: "network", cause: "name_lookup", message: expect.stringContaining("moved.typo-host.com") },
      request: { finalUrl: "https://moved.typo-host.com/there" },
    });
    expect(names.asked).toEqual(["api.example.com", "moved.typo-host.com"]);
    expect(network.asked).toEqual(["https://api.example.com/x"]);
  });

  it("looks up neither addresses nor allowed origins", async () => {
    const network = recordingNetwork();
    const world = recordingNetwork();
    const names = resolverKnowing();
    const options = { fetch: network.fetch, resolveName: names.resolveName, allowedOrigins: { "http://world.atc.test": { fetch: world.fetch } } };
    for (const serverUrl of ["http://world.atc.test", "https://93.184.215.14", "https://[2606:4700:4700::1111]"]) {
      expect((await callTool(tool(serverUrl), {}, options)).ok, serverUrl).toBe(true);
    }
    expect(names.asked).toEqual([]);
    expect(world.asked).toEqual(["http://world.atc.test/x"]);
  });

  it("keeps a slow resolver under the call's deadline", async () => {
    const network = recordingNetwork();
    const never: NameResolver = () => new Promise(() => undefined);
    const result = await callTool(tool("https://api.example.com"), {}, { fetch: network.fetch, resolveName: never, timeoutMs: 100 });
    expect(result).toMatchObject({ ok: false, error: { kind: "timeout" } });
    expect(network.asked).toEqual([]);
  });

  it("fails a guarded fetch (MCP tools, token endpoints, imports) with a name_lookup Failure", async () => {
    const network = recordingNetwork();
    const fetch = guardedFetch({
      fetch: network.fetch,
      signal: new AbortController().signal,
      maxResponseBytes: 1024,
      resolveName: resolverKnowing().resolveName,
    });
    const failed = await fetch("https://mcp.typo-host.com/mcp", { method: "POST", body: "{}" }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Failure);
    expect(failed).toMatchObject({ code: "name_lookup" });
    expect(failed).toMatchObject({ message: expect.stringMatching(/^DNS lookup failed: "mcp\.typo-host\.com" does not resolve/) });
    expect(network.asked).toEqual([]);
  });

  it("answers an MCP tool on such a host with cause name_lookup", async () => {
    const [definition] = definitionsFromMcpTools("https://mcp.typo-host.com/mcp", [{ name: "find", inputSchema: { type: "object", properties: {} } }]).tools;
    if (definition?.mcp === undefined) throw new Error("no definition");
    const network = recordingNetwork();
    const result = await callMcpTool({ ...definition, mcp: definition.mcp }, {}, { fetch: network.fetch, resolveName: resolverKnowing().resolveName });
    expect(result).toMatchObject({ ok: false, error: { kind: "network", cause: "name_lookup", message: expect.stringContaining("mcp.typo-host.com") } });
    expect(network.asked).toEqual([]);
  });
});

describe("the model client with a local resolver", () => {
  const completion = { model: "m", choices: [{ finish_reason: "stop", message: { content: "hi" } }], usage: { prompt_tokens: 1, completion_tokens: 1 } };
  const endpoint: ModelConfig = {
    baseUrl: "https://models.typo-host.com/v1",
    apiKey: "sk-tenant-key-abcdefghijklmnop",
    model: "m",
    embeddingModel: undefined,
    timeoutMs: 5_000,
    sources: { baseUrl: "tenant", apiKey: "tenant", model: "tenant", embeddingModel: "tenant" },
  };

  it("fails a call to an endpoint that does not resolve without sending the prompt", async () => {
    const network = recordingNetwork();
    const client = createModelClient(endpoint, { fetch: network.fetch, maxRetries: 0, resolveName: resolverKnowing().resolveName });
    const failed = await client.chat({ purpose: "plan", messages: [{ role: "user", content: "plan" }] }).catch((error: unknown) => error);
    // The SDK reports any failed fetch as a connection error; what matters is that nothing was sent.
    expect(modelCallOf(failed)).toMatchObject({ kind: "connection" });
    expect(network.asked).toEqual([]);
  });

  it("never looks up the Workers AI placeholder origin", async () => {
    const ai = { run: async () => completion };
    const resolved = resolveModelConfig({ MODEL_BASE_URL: "workers-ai", MODEL_NAME: "@cf/x", AI: ai });
    if (!resolved.ok) throw new Error(resolved.message);
    const names = resolverKnowing();
    const client = createModelClient(resolved.config, { fetch: modelTransport({ AI: ai }, resolved.config), maxRetries: 0, resolveName: names.resolveName });
    const answer = await client.chat({ purpose: "plan", messages: [{ role: "user", content: "plan" }] });
    expect(answer.content).toBe("hi");
    expect(names.asked).toEqual([]);
  });
});
