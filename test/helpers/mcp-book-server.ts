import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";

/**
 * A small remote MCP server built with the official SDK (stateless Streamable HTTP), served from
 * a test's outbound handler: what a tenant's own MCP server would be.
 */

const BOOKS = [
  { id: 1, title: "Dune", author: "Frank Herbert" },
  { id: 2, title: "Dune Messiah", author: "Frank Herbert" },
  { id: 3, title: "The Left Hand of Darkness", author: "Ursula K. Le Guin" },
];

export interface BookServer {
  handle(request: Request): Promise<Response>;
  /** Every request seen: HTTP method, JSON-RPC method(s), Authorization header. */
  seen: { method: string; rpc: string[]; authorization: string | null }[];
  /** The arguments of every tools/call, in order. */
  calls: { name: string; arguments: unknown }[];
  /** Open sessions (stateful servers only). */
  sessions: Map<string, unknown>;
  /** Changes get-book's description, as a server update would. */
  revise(): void;
}

/**
 * `stateful`: sessions as most SDK-built servers keep them (a session id from `initialize`, one
 * transport per session, DELETE ends it); otherwise a fresh stateless server per request.
 */
export function createBookServer(options: { stateful?: boolean } = {}): BookServer {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  let revision = 1;
  const seen: BookServer["seen"] = [];
  const calls: BookServer["calls"] = [];
  const build = (): McpServer => {
    const server = new McpServer({ name: "books", title: "Books", version: "1.0.0" });
    server.registerTool(
      "search_books",
      {
        title: "Search books",
        description: "Find books whose title contains the query.",
        inputSchema: { query: z.string().describe("Words of the title"), limit: z.number().int().min(1).max(10).optional() },
        outputSchema: { books: z.array(z.object({ id: z.number(), title: z.string() })) },
      },
      async ({ query, limit }) => {
        const books = BOOKS.filter((b) => b.title.toLowerCase().includes(query.toLowerCase()))
          .slice(0, limit ?? 10)
          .map(({ id, title }) => ({ id, title }));
        return { content: [{ type: "text", text: JSON.stringify({ books }) }], structuredContent: { books } };
      },
    );
    server.registerTool(
      "get-book",
      { description: revision === 1 ? "One book by id." : "One book by id, with its author.", inputSchema: { id: z.number().int() } },
      async ({ id }) => {
        const book = BOOKS.find((b) => b.id === id);
        return book === undefined
          ? { content: [{ type: "text", text: `no book ${id}` }], isError: true }
          : { content: [{ type: "text", text: JSON.stringify(book) }] };
      },
    );
    return server;
  };
  return {
    seen,
    calls,
    sessions,
    revise: () => {
      revision += 1;
    },
    async handle(request) {
      const text = request.method === "POST" ? await request.text() : "";
      const messages = text === "" ? [] : ([JSON.parse(text)].flat() as { method?: string; params?: { name?: string; arguments?: unknown } }[]);
      for (const m of messages) if (m.method === "tools/call") calls.push({ name: m.params?.name ?? "", arguments: m.params?.arguments });
      seen.push({ method: request.method, rpc: messages.map((m) => m.method ?? "(response)"), authorization: request.headers.get("authorization") });
      const forward = new Request(request.url, { method: request.method, headers: request.headers, ...(text === "" ? {} : { body: text }) });
      if (options.stateful === true) {
        const existing = sessions.get(request.headers.get("mcp-session-id") ?? "");
        if (existing !== undefined) return existing.handleRequest(forward);
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (id) => void sessions.set(id, transport),
          onsessionclosed: (id) => void sessions.delete(id),
        });
        await build().connect(transport);
        return transport.handleRequest(forward);
      }
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await build().connect(transport);
      return transport.handleRequest(forward);
    },
  };
}
