import { afterEach, describe, expect, it, vi } from "vitest";
import { Failure } from "../../functions/common/failures";
import { observeValues } from "../../functions/probing/instance-discovery";
import { directExample, documentProtocol, type ProbedProtocol } from "../../functions/probing/protocol";
import { protocolStore, type StoredProtocol, type OptimizedProtocol, type ProtocolKv } from "../../functions/storage/protocol-store";
import { importToolList } from "../../functions/tools/list-import";

/** KV as a map: what the store writes is exactly what a later read gets. */
function memoryKv(): ProtocolKv & { values: Map<string, string> } {
  const values = new Map<string, string>();
  return {
    values,
    async get(key) {
      return values.get(key) ?? null;
    },
    async put(key, value) {
      values.set(key, value);
    },
  };
}

const [tool] = importToolList({
  endpoints: [
    {
      name: "getMovie",
      url: "https://api.example.test/movie/{movie_id}",
      method: "GET",
      description: "A movie by id.",
      parameters: [{ name: "movie_id", in: "path", required: true, schema: { type: "integer" } }],
    },
  ],
}).tools;
if (tool === undefined) throw new Error("no tool");
const HASH = "a".repeat(64);
const response = { id: 603, title: "The Matrix", genres: [{ id: 28, name: "Action" }] };

const probed: ProbedProtocol = documentProtocol({
  definition: tool,
  definitionHash: HASH,
  response,
  example: directExample(tool, { movie_id: 603 }),
  how: "direct",
  helpers: [],
  usage: { toolCalls: 1, modelCalls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  probedAt: "2026-01-01T00:00:00.000Z",
  samples: observeValues(response),
});

const optimization = {
  jobId: "job_1",
  score: 0.9,
  originalScore: 0.4,
  originalDescription: "A movie by id.",
  demonstrations: [{ query: "What is movie 603?", args: { movie_id: 603 }, resultSummary: "The Matrix", answer: "The Matrix", score: 1 }],
};
const optimized: OptimizedProtocol = { ...probed, description: "Look up one movie by its TMDB id.", descriptionSource: "optimized", optimization };

afterEach(() => {
  vi.restoreAllMocks();
});

describe("protocol store keys", () => {
  it("follow docs/storage.md: protocol/<tenant>/<tool>/<hash> and …/optimized/<job id>", () => {
    const store = protocolStore({ PROTOCOLS: memoryKv() }, "acme");
    expect(store.probedKey("getMovie", HASH)).toBe(`protocol/acme/getMovie/${HASH}`);
    expect(store.optimizedKey("getMovie", HASH, "job_1")).toBe(`protocol/acme/getMovie/${HASH}/optimized/job_1`);
    expect(store.keyOf(probed)).toBe(store.probedKey("getMovie", HASH));
    expect(store.keyOf(optimized)).toBe(store.optimizedKey("getMovie", HASH, "job_1"));
  });

  it("keep tenants apart: no segment may hold a slash, and a tenant reads only its own keys", async () => {
    const kv = memoryKv();
    const acme = protocolStore({ PROTOCOLS: kv }, "acme");
    const other = protocolStore({ PROTOCOLS: kv }, "other");
    expect(acme.probedKey("getMovie", HASH)).not.toBe(other.probedKey("getMovie", HASH));
    expect(() => acme.probedKey("a/b", HASH)).toThrow(Failure);
    expect(() => acme.optimizedKey("getMovie", HASH, "job/../1")).toThrow(Failure);
    expect(() => protocolStore({ PROTOCOLS: kv }, "acme/getMovie")).toThrow(Failure);
    const key = await acme.write(probed);
    await expect(other.read(key)).rejects.toMatchObject({ kind: "internal" });
    expect(await other.read(other.probedKey("getMovie", HASH))).toEqual({ status: "missing" });
  });
});

describe("protocol store values", () => {
  it("round-trip a probed and an optimised protocol through JSON", async () => {
    const kv = memoryKv();
    const store = protocolStore({ PROTOCOLS: kv }, "acme");
    const probedKey = await store.write(probed);
    const optimizedKey = await store.write(optimized);
    expect(await store.read(probedKey)).toEqual({ status: "found", protocol: probed });
    expect(await store.read(optimizedKey)).toEqual({ status: "found", protocol: optimized });
    expect(kv.values.size).toBe(2);
    const all = await store.readAll([
      { tool: "getMovie", kvKey: optimizedKey },
      { tool: "gone", kvKey: store.probedKey("gone", HASH) },
    ]);
    expect([...all.keys()]).toEqual(["getMovie"]);
  });

  it("accept an optimised protocol of a tool that was never probed", async () => {
    const store = protocolStore({ PROTOCOLS: memoryKv() }, "acme");
    const bare: OptimizedProtocol = { name: "getMovie", definitionHash: HASH, description: "Look up one movie.", descriptionSource: "optimized", optimization };
    expect(await store.read(await store.write(bare))).toEqual({ status: "found", protocol: bare });
  });

  it("refuse to write a value that does not match the stored shape", async () => {
    const kv = memoryKv();
    const store = protocolStore({ PROTOCOLS: kv }, "acme");
    const wrong = { ...probed, how: "guessed" } as unknown as StoredProtocol;
    await expect(store.write(wrong)).rejects.toMatchObject({ kind: "internal", message: expect.stringContaining("getMovie") });
    expect(kv.values.size).toBe(0);
  });

  const malformed: [string, () => string, RegExp][] = [
    ["text that is not JSON", () => "{not json", /not JSON/],
    [
      "JSON of another shape",
      () => JSON.stringify({ ...probed, responseSchema: undefined, extra: true }),
      /responseSchema[\s\S]*extra|extra[\s\S]*responseSchema/,
    ],
    ["a value for another definition", () => JSON.stringify({ ...probed, definitionHash: "b".repeat(64) }), /not for this key/],
  ];
  for (const [what, value, why] of malformed) {
    it(`report ${what} as malformed, never return it`, async () => {
      const kv = memoryKv();
      const store = protocolStore({ PROTOCOLS: kv }, "acme");
      const key = store.probedKey("getMovie", HASH);
      kv.values.set(key, value());
      const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
      const read = await store.read(key);
      expect(read).toEqual({ status: "malformed", problem: expect.stringMatching(why) });
      expect(logged).toHaveBeenCalledWith(expect.stringContaining(key));
      expect(await store.readAll([{ tool: "getMovie", kvKey: key }])).toEqual(new Map());
    });
  }
});
