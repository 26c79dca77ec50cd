import { describe, expect, it } from "vitest";
import { exploratoryDefinition } from "../../functions/jobs/exploratory-definition";
import { callMcpTool } from "../../functions/tools/mcp-call";
import { definitionsFromMcpTools } from "../../functions/tools/mcp-definitions";
import { createBookServer } from "../helpers/mcp-book-server";

const URL_ = "https://books.example.com/mcp";
const SECRET = "mcp-server-secret-0123456789";

/** The book server's search tool as the import would register it. */
function searchBooks() {
  const [definition] = definitionsFromMcpTools(URL_, [
    {
      name: "search_books",
      description: "Find books",
      inputSchema: { type: "object", properties: { query: { type: "string" }, limit: { type: "integer" } }, required: ["query"] },
    },
  ]).tools;
  if (definition?.mcp === undefined) throw new Error("no definition");
  return { ...definition, mcp: definition.mcp };
}

/** A network where the book server lives at books.example.com and `detour` may answer first. */
function network(detour?: (request: Request) => Response | undefined, options: { stateful?: boolean } = {}) {
  const books = createBookServer(options);
  const hops: { url: string; authorization: string | null }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    hops.push({ url: request.url, authorization: request.headers.get("authorization") });
    return detour?.(request) ?? books.handle(request);
  };
  return { fetch, hops, books };
}

describe("calling a remote MCP tool through the safe-call path", () => {
  it("sends initialize and tools/call with the credential, and returns the structured result", async () => {
    const { fetch, hops, books } = network();
    const result = await callMcpTool(searchBooks(), { query: "dune", limit: 1 }, { fetch, credential: { scheme: "bearer", in: "header", value: SECRET } });
    expect(result).toMatchObject({ ok: true, status: 200, body: { books: [{ id: 1, title: "Dune" }] }, request: { method: "POST", url: URL_ } });
    expect(books.seen.flatMap((s) => s.rpc)).toEqual(["initialize", "notifications/initialized", "tools/call"]);
    expect(hops.every((h) => h.authorization === `Bearer ${SECRET}`)).toBe(true);
  });

  it("works with a server that keeps sessions, and ends the session after the call", async () => {
    const { fetch, books } = network(undefined, { stateful: true });
    const result = await callMcpTool(searchBooks(), { query: "darkness" }, { fetch });
    expect(result).toMatchObject({ ok: true, body: { books: [{ id: 3, title: "The Left Hand of Darkness" }] } });
    expect(books.seen.map((s) => [s.method, ...s.rpc].join(" "))).toEqual(["POST initialize", "POST notifications/initialized", "POST tools/call", "DELETE"]);
    expect(books.sessions.size).toBe(0);
  });

  it("takes tool play's exploratory definition: undocumented arguments reach the server as they do for REST tools", async () => {
    const { fetch, books } = network();
    const args = { query: "dune", edition: "first" };
    const result = await callMcpTool({ ...exploratoryDefinition(searchBooks(), args), mcp: { tool: "search_books" } }, args, { fetch });
    expect(result.ok).toBe(true);
    expect(books.calls).toEqual([{ name: "search_books", arguments: { query: "dune", edition: "first" } }]);
  });

  it("checks every redirect hop: a redirect into a private network is refused", async () => {
    const { fetch, hops } = network((request) =>
      new URL(request.url).hostname === "books.example.com" ? new Response(null, { status: 307, headers: { Location: "http://10.0.0.7/mcp" } }) : undefined,
    );
    const result = await callMcpTool(searchBooks(), { query: "dune" }, { fetch });
    expect(result.ok).toBe(false);
    expect(result.error).toMatchObject({ kind: "blocked_destination" });
    expect(result.error?.message).toContain("private address");
    expect(hops.map((h) => h.url)).toEqual([URL_]);
  });

  it("keeps the credential off another origin a redirect leads to", async () => {
    const { fetch, hops } = network((request) =>
      new URL(request.url).hostname === "books.example.com"
        ? new Response(null, { status: 308, headers: { Location: "https://mirror.example.org/mcp" } })
        : undefined,
    );
    await callMcpTool(searchBooks(), { query: "dune" }, { fetch, credential: { scheme: "bearer", in: "header", value: SECRET } });
    expect(hops[0]).toEqual({ url: URL_, authorization: `Bearer ${SECRET}` });
    expect(hops[1]).toEqual({ url: "https://mirror.example.org/mcp", authorization: null });
  });

  it("caps the bytes of the whole exchange", async () => {
    const { fetch } = network();
    const result = await callMcpTool(searchBooks(), { query: "dune" }, { fetch, maxResponseBytes: 300 });
    expect(result.ok).toBe(false);
    expect(result.error).toMatchObject({ kind: "too_large", message: "the responses exceed 300 bytes" });
  });

  it("times out a server that never answers, and validates arguments before any request", async () => {
    const { fetch, hops } = network(() => undefined);
    const hanging: typeof globalThis.fetch = () => new Promise(() => undefined);
    const slow = await callMcpTool(searchBooks(), { query: "dune" }, { fetch: hanging, timeoutMs: 200 });
    expect(slow.error).toMatchObject({ kind: "timeout", message: "the MCP server gave no complete answer within 200 ms" });
    const bad = await callMcpTool(searchBooks(), { limit: 2 }, { fetch });
    expect(bad.error).toMatchObject({ kind: "invalid_arguments", argument: "query" });
    expect(hops).toEqual([]);
  });

  it("reports a server that is not an MCP server as a protocol error", async () => {
    const { fetch } = network(() => new Response("<html>hello</html>", { headers: { "content-type": "text/html" } }));
    const result = await callMcpTool(searchBooks(), { query: "dune" }, { fetch });
    expect(result.error?.kind).toBe("protocol_error");
  });
});
