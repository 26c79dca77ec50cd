import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBookServer, type BookServer } from "../helpers/mcp-book-server";
import { waitForJob } from "../helpers/jobs";
import { connectMcp } from "../helpers/mcp-client";
import { createScriptedModel, type ScriptedModel } from "../helpers/scripted-model";
import { createTenant, startService, type TestService } from "../helpers/service";

const BOOKS_URL = "https://books.example.com/mcp";
const TOKEN = "books-secret-token-0123456789";
const fence = (code: string) => `Here is the program.\n\`\`\`ts\n${code}\n\`\`\``;

let service: TestService;
let books: BookServer;
let model: ScriptedModel;
let tenant: { id: string; key: string };
let hangs = 0;
let client: Client | undefined;

interface ImportReport {
  created: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
  warnings: string[];
}
interface StoredTool {
  definition: {
    name: string;
    operation: string;
    serverUrl: string;
    mcp?: { tool: string };
    parameters: { name: string; in: string; required: boolean }[];
    responseSchema?: unknown;
    apiTitle?: string;
  };
  hash: string;
  source: string;
}

const snapshot = async () => ({
  tools: (await service.json<{ tools: { name: string; hash: string }[] }>("GET", "/v1/tools", { key: tenant.key })).body.tools,
  credentials: (await service.json<{ credentials: unknown[] }>("GET", "/v1/credentials", { key: tenant.key })).body.credentials,
});

beforeAll(async () => {
  books = createBookServer();
  model = createScriptedModel();
  service = await startService({
    bindings: { TOOL_TIMEOUT_MS: "1500" },
    outbound: async (request) => {
      const url = new URL(request.url);
      if (url.hostname === "model.atc.test") return model.handle(request);
      if (url.hostname === "books.example.com") return books.handle(request);
      if (url.hostname === "echo.example.com") return new Response(`bad request, you sent ${request.headers.get("authorization")}`, { status: 400 });
      if (url.hostname === "redirects.example.com") return new Response(null, { status: 307, headers: { location: "http://192.168.1.20/mcp" } });
      if (url.hostname === "garbage.example.com") return new Response("<html>not MCP</html>", { headers: { "content-type": "text/html" } });
      if (url.hostname === "hangs.example.com") {
        hangs += 1;
        return new Promise<Response>(() => undefined);
      }
      return new Response("no such host", { status: 502 });
    },
  });
  tenant = await createTenant(service, "mcp-importer");
});
afterAll(async () => {
  await client?.close().catch(() => undefined);
  await service.dispose();
});

describe("MCP servers as a tool source", () => {
  it("imports a server's tools with their input schemas, source = the server, credential stored sealed", async () => {
    const res = await service.json<ImportReport>("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "mcp", url: BOOKS_URL, headers: { Authorization: `Bearer ${TOKEN}` } },
    });
    expect(res.status).toBe(200);
    expect(res.body.created).toEqual(["getBook", "search_books"]);
    expect(res.body.warnings.join("\n")).toContain('"get-book" is registered as getBook');
    expect(books.seen.every((s) => s.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(books.seen.flatMap((s) => s.rpc)).toEqual(["initialize", "notifications/initialized", "tools/list"]);

    const search = await service.json<StoredTool>("GET", "/v1/tools/search_books", { key: tenant.key });
    expect(search.body.source).toBe(BOOKS_URL);
    expect(search.body.definition).toMatchObject({ serverUrl: BOOKS_URL, operation: "MCP search_books", mcp: { tool: "search_books" } });
    // The server's title says what its tools are for (indexed as the tool's API).
    expect(search.body.definition.apiTitle).toBe("Books");
    expect(search.body.definition.parameters).toEqual([
      { name: "query", in: "body", required: true, description: "Words of the title", schema: { type: "string" } },
      { name: "limit", in: "body", required: false, schema: { type: "integer", minimum: 1, maximum: 10 } },
    ]);
    expect(search.body.definition.responseSchema).toMatchObject({ type: "object", properties: { books: { type: "array" } } });
    expect(JSON.stringify(search.body)).not.toContain(TOKEN);
    const credentials = await service.json<{ credentials: unknown[] }>("GET", "/v1/credentials", { key: tenant.key });
    expect(credentials.body.credentials).toEqual([
      expect.objectContaining({ scope: { kind: "server", value: BOOKS_URL }, scheme: "bearer", hint: "••••6789" }),
    ]);
  });

  it("calls an imported tool through the server's tools/call, with the credential injected and never shown", async () => {
    books.seen.length = 0;
    const res = await service.json<{ ok: boolean; status: number; body: unknown; request: { url: string } }>("POST", "/v1/tools/search_books/call", {
      key: tenant.key,
      body: { arguments: { query: "dune", limit: 1 } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, status: 200, body: { books: [{ id: 1, title: "Dune" }] }, request: { url: BOOKS_URL } });
    expect(books.seen.flatMap((s) => s.rpc)).toEqual(["initialize", "notifications/initialized", "tools/call"]);
    expect(books.seen.every((s) => s.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain(TOKEN);

    // A text result that holds JSON comes back as that value; a tool error as ok: false.
    const book = await service.json<{ ok: boolean; body: unknown }>("POST", "/v1/tools/getBook/call", { key: tenant.key, body: { arguments: { id: 3 } } });
    expect(book.body).toMatchObject({ ok: true, body: { id: 3, title: "The Left Hand of Darkness" } });
    const missing = await service.json<{ ok: boolean; error: { kind: string; message: string } }>("POST", "/v1/tools/getBook/call", {
      key: tenant.key,
      body: { arguments: { id: 99 } },
    });
    expect(missing.body).toMatchObject({ ok: false, error: { kind: "tool_error", message: "the MCP tool reported an error: no book 99" } });

    // Arguments are checked against the kept input schema before the server is contacted.
    books.seen.length = 0;
    const refused = await service.json<{ type: string; errors: { path: string }[] }>("POST", "/v1/tools/search_books/call", {
      key: tenant.key,
      body: { arguments: { query: 7 } },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]?.path).toBe("query");
    expect(books.seen).toEqual([]);
  });

  it("is usable from the tenant's own MCP server and in runs, like a REST tool", async () => {
    client = await connectMcp(service, tenant.key);
    const found = await client.callTool({ name: "find_tools", arguments: { task: "search books by title", k: 2 } }, CallToolResultSchema);
    expect((found.structuredContent as { candidates: { name: string }[] }).candidates[0]?.name).toBe("search_books");
    const called = CallToolResultSchema.parse(
      await client.callTool({ name: "call_tool", arguments: { name: "search_books", arguments: { query: "darkness" } } }, CallToolResultSchema),
    );
    expect((called.structuredContent as { body: unknown }).body).toEqual({ books: [{ id: 3, title: "The Left Hand of Darkness" }] });

    model.reset();
    const program = [
      'const found = await tools.search_books({ query: "dune" });',
      "const book = await tools.getBook({ id: found.books[1].id });",
      "return book.title;",
    ].join("\n");
    model.on({ name: "generate", match: (r) => r.lastUserMessage.includes("Query: Which is the second Dune book"), answer: { text: fence(program) } });
    const run = await service.json<{ status: string; answer: unknown; trajectory: string[] }>("POST", "/v1/runs", {
      key: tenant.key,
      body: { task: "Which is the second Dune book?", tools: ["search_books", "getBook"] },
    });
    expect(run.body).toMatchObject({ status: "succeeded", answer: "Dune Messiah", trajectory: ["search_books", "getBook"] });
    // The typed API the model saw was built from the MCP input schema.
    expect(model.requests.find((r) => r.rule === "generate")?.lastUserMessage).toMatch(
      /search_books\(args: \{ .*query: string; limit\?: number; \}\): Promise<\{ books: \{ id: number; title: string \}\[\] \}>/,
    );
  });

  it("is probed like a REST tool: the response schema comes from a real tools/call result", async () => {
    const started = await service.json<{ jobId: string; tools: string[] }>("POST", "/v1/probe", {
      key: tenant.key,
      body: { tools: ["search_books", "getBook"] },
    });
    expect(started.status).toBe(202);
    const job = await waitForJob<{ status: string; result?: { results: { tool: string; status: string }[] } }>(service, tenant.key, started.body.jobId, 30_000);
    expect(job.status).toBe("succeeded");
    expect(job.result?.results.map((r) => [r.tool, r.status])).toEqual([
      ["getBook", "probed"],
      ["search_books", "probed"],
    ]);
    // get-book documents no output schema: the protocol's comes from what the server answered,
    // with an id that search_books handed out (chain of probing).
    const protocol = await service.json<{ protocol: { responseSchema: unknown; how: string; helpers: string[]; example: { arguments: unknown } } }>(
      "GET",
      "/v1/tools/getBook/protocol",
      { key: tenant.key },
    );
    expect(protocol.body.protocol).toMatchObject({
      responseSchema: { id: "int", title: "str", author: "str" },
      how: "helper_chain",
      helpers: ["search_books"],
      example: { arguments: { id: 1 } },
    });
  });

  it("re-import is idempotent by content hash; a changed tool is updated", async () => {
    const before = await snapshot();
    const again = await service.json<ImportReport>("POST", "/v1/tools/import", { key: tenant.key, body: { format: "mcp", url: BOOKS_URL } });
    expect(again.body).toMatchObject({ created: [], updated: [], unchanged: ["getBook", "search_books"] });
    expect((await snapshot()).tools).toEqual(before.tools);

    books.revise();
    const changed = await service.json<ImportReport>("POST", "/v1/tools/import", { key: tenant.key, body: { format: "mcp", url: BOOKS_URL } });
    expect(changed.body).toMatchObject({ created: [], updated: ["getBook"], unchanged: ["search_books"] });
  });

  it("a server that answers garbage, hangs or is refused gets a clear error, and nothing stored changes", async () => {
    const before = await snapshot();
    const garbage = await service.json<{ type: string; status: number; detail: string }>("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "mcp", url: "https://garbage.example.com/mcp", headers: { Authorization: "Bearer another-secret-0123456789" } },
    });
    expect(garbage.status).toBe(502);
    expect(garbage.body.type).toBe("https://atc-edge.dev/problems/upstream-error");
    expect(garbage.body.detail).toMatch(/^Importing from the MCP server https:\/\/garbage\.example\.com\/mcp failed: /);

    const echoed = await service.json<{ detail: string }>("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "mcp", url: "https://echo.example.com/mcp", headers: { Authorization: "Bearer echoed-secret-0123456789" } },
    });
    expect(echoed.status).toBe(502);
    expect(echoed.body.detail).toContain("answered HTTP 400: Streamable HTTP error: Error POSTing to endpoint: bad request, you sent [REDACTED]");
    expect(echoed.body.detail).not.toContain("echoed-secret");

    const hanging = await service.json<{ type: string; detail: string }>("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "mcp", url: "https://hangs.example.com/mcp" },
    });
    expect(hanging.status).toBe(502);
    expect(hanging.body.detail).toContain("no complete answer within 1500 ms");
    expect(hangs).toBe(1);

    const refused = await service.json<{ type: string; detail: string }>("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "mcp", url: "http://127.0.0.1:9/mcp" },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain("refused destination: loopback address");

    // A private address, given or reached by a redirect, is refused by the destination guard too.
    const privateAddress = await service.json<{ type: string; detail: string }>("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "mcp", url: "http://10.0.0.7/mcp" },
    });
    expect(privateAddress.status).toBe(400);
    expect(privateAddress.body.type).toBe("https://atc-edge.dev/problems/invalid-request");
    expect(privateAddress.body.detail).toMatch(/refused destination: private/);
    const redirected = await service.json<{ type: string; detail: string }>("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "mcp", url: "https://redirects.example.com/mcp" },
    });
    expect(redirected.status).toBe(400);
    expect(redirected.body.detail).toMatch(/refused destination: private/);

    expect(await snapshot()).toEqual(before);
  });
});
