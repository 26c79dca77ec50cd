import { Failure } from "../../functions/common/failures";
import { describe, expect, it } from "vitest";
import { recordingNetwork, toolOn } from "../helpers/recording-network";
import { callMcpTool } from "../../functions/tools/mcp-call";
import { definitionsFromMcpTools } from "../../functions/tools/mcp-definitions";
import { callTool, guardedFetch } from "../../functions/tools/safe-call";
import { unresolvableName } from "../../functions/tools/safe-call/name-lookup";

const tool = toolOn;

describe("host names that can never be looked up", () => {
  it.each([
    ["tool-host.invalid", /\.invalid/],
    ["API.Example.INVALID.", /\.invalid/],
    ["invalid", /\.invalid/],
    [`${"a".repeat(64)}.example.com`, /label longer than the 63/],
    [`${`${"a".repeat(60)}.`.repeat(5)}com`, /longer than the 253/],
  ])("refuses %s", (hostname, reason) => {
    expect(unresolvableName(hostname)).toMatch(reason);
  });

  it.each(["api.example.com", "invalid.example.com", "my-invalid-host.com", "203.0.113.5", "[2001:db8::1]", `${"a".repeat(63)}.example.com`])(
    "leaves %s to the resolver",
    (hostname) => {
      expect(unresolvableName(hostname)).toBeNull();
    },
  );

  it("answers a tool call with cause name_lookup without asking the network", async () => {
    const network = recordingNetwork();
    const result = await callTool(tool("https://tool-host.invalid"), {}, { fetch: network.fetch });
    expect(result).toMatchObject({
      ok: false,
      error: { kind: "network", cause: "name_lookup", message: expect.stringMatching(/could not be looked up \(DNS\).*tool-host\.invalid/) },
    });
    expect(network.asked).toEqual([]);
  });

  it("answers the same when a redirect leads there", async () => {
    const network = recordingNetwork("https://elsewhere.invalid/moved");
    const result = await callTool(tool("https://api.example.com"), {}, { fetch: network.fetch });
    expect(result).toMatchObject({ ok: false, error: { kind: "network", cause: "name_lookup" }, request: { finalUrl: "https://elsewhere.invalid/moved" } });
    expect(network.asked).toEqual(["https://api.example.com/x"]);
  });

  it("lets an allowed origin's own fetcher answer, whatever its name", async () => {
    const network = recordingNetwork();
    const world = recordingNetwork();
    const result = await callTool(
      tool("http://world.invalid"),
      {},
      { fetch: network.fetch, allowedOrigins: { "http://world.invalid": { fetch: world.fetch } } },
    );
    expect(result.ok).toBe(true);
    expect(world.asked).toEqual(["http://world.invalid/x"]);
  });

  it("fails a guarded fetch (MCP tools, token endpoints) with a name_lookup Failure", async () => {
    const network = recordingNetwork();
    const fetch = guardedFetch({ fetch: network.fetch, signal: new AbortController().signal, maxResponseBytes: 1024 });
    const failed = await fetch("https://mcp.invalid/mcp", { method: "POST", body: "{}" }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Failure);
    expect(failed).toMatchObject({ code: "name_lookup" });
    expect(failed).toMatchObject({ message: expect.stringMatching(/^DNS lookup failed: "mcp\.invalid"/) });
    expect(network.asked).toEqual([]);
  });

  it("answers an MCP tool on such a host with cause name_lookup", async () => {
    const [definition] = definitionsFromMcpTools("https://mcp.invalid/mcp", [{ name: "find", inputSchema: { type: "object", properties: {} } }]).tools;
    if (definition?.mcp === undefined) throw new Error("no definition");
    const network = recordingNetwork();
    const result = await callMcpTool({ ...definition, mcp: definition.mcp }, {}, { fetch: network.fetch });
    expect(result).toMatchObject({ ok: false, error: { kind: "network", cause: "name_lookup", message: expect.stringContaining("mcp.invalid") } });
    expect(network.asked).toEqual([]);
  });
});
