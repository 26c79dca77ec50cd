import { describe, expect, it } from "vitest";
import { ToolDefinition } from "../../functions/tools/definition";
import { callTool } from "../../functions/tools/safe-call";
import { causeOfEdgeResponse, causeOfThrown } from "../../functions/tools/safe-call/failure-cause";

const tool = ToolDefinition.parse({ name: "t", method: "GET", serverUrl: "https://api.example.com", path: "/x", operation: "GET /x" });

/** An undici-style failure: "fetch failed" with the reason in `cause`. */
function undiciError(code: string, message: string): Error {
  return new TypeError("fetch failed", { cause: Object.assign(new Error(message), { code }) });
}

describe("what failed when a tool could not be reached", () => {
  it.each([
    [undiciError("ENOTFOUND", "getaddrinfo ENOTFOUND api.example.com"), "name_lookup"],
    [new Error("DNS lookup failed."), "name_lookup"],
    [undiciError("ECONNREFUSED", "connect ECONNREFUSED 203.0.113.5:443"), "connect"],
    [undiciError("CERT_HAS_EXPIRED", "certificate has expired"), "tls"],
    [undiciError("UND_ERR_SOCKET", "other side closed"), "connection_lost"],
    [new Error("Network connection lost."), "connection_lost"],
    [new Error("internal error; reference = 6q954prs1djo65arotf9h8h7"), "unknown"],
  ])("classifies %s", (error, cause) => {
    expect(causeOfThrown(error)).toBe(cause);
  });

  it.each([
    [530, "error code: 1016", "name_lookup"],
    [521, "error code: 521", "connect"],
    [522, "", "timeout"],
    [525, "error code: 525", "tls"],
    [526, "", "tls"],
    [503, "Service Unavailable", undefined],
    [404, "not found", undefined],
  ])("reads Cloudflare's answer %i %s", (status, body, cause) => {
    expect(causeOfEdgeResponse(status, body)).toBe(cause);
  });

  it("says it in the tool call's error, for thrown failures and for Cloudflare's answers", async () => {
    const thrown = await callTool(tool, {}, { fetch: () => Promise.reject(undiciError("ENOTFOUND", "getaddrinfo ENOTFOUND api.example.com")) });
    expect(thrown).toMatchObject({
      ok: false,
      error: { kind: "network", cause: "name_lookup", message: expect.stringContaining("could not be looked up (DNS)") },
    });
    const opaque = await callTool(tool, {}, { fetch: () => Promise.reject(new Error("internal error; reference = abc")) });
    expect(opaque.error?.message).toMatch(/does not say why \(name lookup, connection or TLS\).*reference = abc/);
    const edge = await callTool(tool, {}, { fetch: async () => new Response("error code: 1016", { status: 530 }) });
    expect(edge).toMatchObject({ ok: false, status: 530, error: { kind: "http_status", cause: "name_lookup" } });
    const plain = await callTool(tool, {}, { fetch: async () => new Response("nope", { status: 404 }) });
    expect(plain.error).toEqual({ kind: "http_status", message: "the tool answered HTTP 404" });
  });
});
