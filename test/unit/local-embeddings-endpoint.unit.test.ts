import { afterEach, describe, expect, it } from "vitest";
import { cacheLine, embeddingsChoice, readCacheLines, textHash } from "../../bench/lib/embedding-vectors";
import { createModelClient } from "../../functions/llm/client";
import { MAX_TOOL_EMBEDDING_CHARS, toolEmbeddingText } from "../../functions/toolnet/retrieval";
import type { ToolDefinition } from "../../functions/tools/definition";
import { handleEmbeddingsRequest, type EmbeddingsEndpoint } from "../../scripts/embeddings-endpoint";
import { serveOnLoopback, type LoopbackServer } from "../../scripts/serve-on-loopback";

/**
 * The local embeddings server's wire (scripts/embeddings-endpoint.ts) with a stand-in encoder: the
 * real one (scripts/local-embeddings.ts) is installed from npm on first use, never in tests.
 */
const letters = (text: string): number[] => ["a", "e", "o"].map((letter) => [...text].filter((c) => c === letter).length + 0.5);
const endpoint: EmbeddingsEndpoint = { model: "test-encoder", embed: async (texts) => texts.map(letters) };

const post = (body: unknown, path = "/v1/embeddings") =>
  handleEmbeddingsRequest(
    endpoint,
    new Request(`http://127.0.0.1${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );

describe("local embeddings endpoint", () => {
  it("answers vectors in input order, each with its index, the model and the tokens used", async () => {
    const response = await post({ model: "test-encoder", input: ["banana", "tree"], encoding_format: "float" });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      object: string;
      model: string;
      data: { object: string; index: number; embedding: number[] }[];
      usage: { prompt_tokens: number };
    };
    expect(body.object).toBe("list");
    expect(body.model).toBe("test-encoder");
    expect(body.data).toEqual([
      { object: "embedding", index: 0, embedding: letters("banana") },
      { object: "embedding", index: 1, embedding: letters("tree") },
    ]);
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it("takes one string as one input, and sends float32 base64 when asked", async () => {
    const response = await post({ input: "oboe", encoding_format: "base64" });
    const body = (await response.json()) as { data: { embedding: string }[] };
    expect(body.data).toHaveLength(1);
    const bytes = Buffer.from(body.data[0]?.embedding ?? "", "base64");
    expect([...new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)]).toEqual(letters("oboe"));
  });

  it("answers bad requests with problem details, never a stack trace", async () => {
    const cases: [Response, number, string][] = [
      [await post("{not json"), 400, "malformed-json"],
      [await post({ input: [] }), 400, "invalid-request"],
      [await post({ input: [1, 2] }), 400, "invalid-request"],
      [await post({ input: "x", model: "another-model" }), 404, "not-found"],
      [await post({ input: "x" }, "/v1/chat/completions"), 404, "not-found"],
      [await handleEmbeddingsRequest(endpoint, new Request("http://127.0.0.1/v1/embeddings")), 405, "method-not-allowed"],
    ];
    for (const [response, status, kind] of cases) {
      expect(response.status).toBe(status);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      const body = (await response.json()) as { type: string; status: number; detail: string; error: { message: string } };
      expect(body.type).toBe(`https://atc-edge.dev/problems/${kind}`);
      expect(body.status).toBe(status);
      expect(body.error.message).toBe(body.detail);
    }
  });

  it("reports an encoder failure as a 500 problem", async () => {
    const failing: EmbeddingsEndpoint = { model: "m", embed: async () => Promise.reject(new Error("out of memory")) };
    const response = await handleEmbeddingsRequest(failing, new Request("http://127.0.0.1/v1/embeddings", { method: "POST", body: '{"input":"x"}' }));
    expect(response.status).toBe(500);
    expect(((await response.json()) as { detail: string }).detail).toContain("out of memory");
  });

  it("lists its one model", async () => {
    const response = await handleEmbeddingsRequest(endpoint, new Request("http://127.0.0.1/v1/models"));
    expect(((await response.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual(["test-encoder"]);
  });
});

describe("the product's model client against the local server", () => {
  let server: LoopbackServer | undefined;
  afterEach(async () => server?.close());

  it("embeds through it over loopback, as the Worker would with MODEL_ALLOW_LOOPBACK", async () => {
    server = await serveOnLoopback((request) => handleEmbeddingsRequest(endpoint, request));
    const client = createModelClient({
      baseUrl: server.baseUrl,
      apiKey: "local",
      model: "none",
      embeddingModel: "test-encoder",
      timeoutMs: 10_000,
      allowLoopback: true,
      sources: { baseUrl: "env", apiKey: "env", model: "env", embeddingModel: "env" },
    });
    const { vectors } = await client.embed(["abacus", "echo"]);
    expect(vectors).toEqual([letters("abacus"), letters("echo")]);
  });
});

describe("the bench's embeddings option and vector cache", () => {
  it("reads --embeddings and --embeddings-model", () => {
    expect(embeddingsChoice(["tmdb"])).toBeUndefined();
    expect(embeddingsChoice(["--embeddings=local"], {})).toEqual({ endpoint: "local", model: undefined, apiKey: "local" });
    expect(embeddingsChoice(["--embeddings=http://127.0.0.1:8790/v1", "--embeddings-model=bge"], { EMBEDDINGS_API_KEY: "k" })).toEqual({
      endpoint: "http://127.0.0.1:8790/v1",
      model: "bge",
      apiKey: "k",
    });
    expect(() => embeddingsChoice(["--embeddings=http://127.0.0.1:8790/v1"])).toThrow(/embeddings-model/);
    expect(() => embeddingsChoice(["--embeddings=somewhere"])).toThrow(/local/);
  });

  it("reads back what it wrote, by text, skipping a torn last line", () => {
    const content = [cacheLine("get weather", [0.25, -1.5, 3]), cacheLine("list movies", [1, 2, 4]), '{"h":"abc","v":'].join("");
    const vectors = readCacheLines(content);
    expect(vectors.size).toBe(2);
    expect([...(vectors.get(textHash("get weather")) ?? [])]).toEqual([0.25, -1.5, 3]);
    expect([...(vectors.get(textHash("list movies")) ?? [])]).toEqual([1, 2, 4]);
  });
});

describe("toolEmbeddingText", () => {
  it("is the tool's name, operation, summary and description, one per line, capped", () => {
    const tool = { name: "getWeather", operation: "GET /weather", summary: "Weather now", description: "Current weather of a city." } as ToolDefinition;
    expect(toolEmbeddingText(tool)).toBe("getWeather\nGET /weather\nWeather now\nCurrent weather of a city.");
    expect(toolEmbeddingText({ ...tool, summary: undefined, description: "x".repeat(5_000) })).toHaveLength(MAX_TOOL_EMBEDDING_CHARS);
  });
});
