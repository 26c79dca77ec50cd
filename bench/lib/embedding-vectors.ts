/**
 * Vectors for benchmarks from an OpenAI-compatible embeddings endpoint, asked through the
 * product's own model client (functions/llm/client.ts) as the Worker asks at registration and
 * route time. `local` starts the offline sentence encoder (scripts/local-embeddings.ts) on a
 * loopback port first. Vectors are cached on disk by model and text under `.embeddings-model/`
 * (git-ignored), so a rerun embeds nothing it has embedded before.
 */
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createModelClient, type ModelClient } from "../../functions/llm/client";
import { startLocalEmbeddingsServer } from "../../scripts/embeddings-server";
import { localEmbeddingsFolder } from "../../scripts/local-embeddings";

export interface EmbeddingsChoice {
  /** `local`, or the base URL of an OpenAI-compatible endpoint (`…/v1`). */
  endpoint: string;
  /** The model to ask for (`--embeddings-model`; the local encoder's own name for `local`). */
  model: string | undefined;
  /** Bearer key for a remote endpoint (`EMBEDDINGS_API_KEY`). */
  apiKey: string;
}

/** `--embeddings=local|URL` and `--embeddings-model=NAME` of a bench's arguments; undefined when not asked for. */
export function embeddingsChoice(argv: readonly string[], env: Record<string, string | undefined> = process.env): EmbeddingsChoice | undefined {
  const value = (flag: string) => argv.find((a) => a.startsWith(`--${flag}=`))?.slice(flag.length + 3);
  const endpoint = value("embeddings");
  if (endpoint === undefined || endpoint === "") return undefined;
  if (endpoint !== "local" && !/^https?:\/\//.test(endpoint)) throw new Error(`--embeddings takes "local" or an http(s) base URL, not ${endpoint}`);
  const model = value("embeddings-model");
  if (endpoint !== "local" && model === undefined) throw new Error("--embeddings=URL needs --embeddings-model=NAME");
  return { endpoint, model, apiKey: env.EMBEDDINGS_API_KEY ?? "local" };
}

/** One file line of the cache: the text's hash and its vector (float32, base64). */
export function cacheLine(text: string, vector: readonly number[]): string {
  return `${JSON.stringify({ h: textHash(text), v: Buffer.from(new Float32Array(vector).buffer).toString("base64") })}\n`;
}

/** The cache's lines read back, by text hash (a torn last line is skipped: it is embedded again). */
export function readCacheLines(content: string): Map<string, Float32Array> {
  const vectors = new Map<string, Float32Array>();
  for (const line of content.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const { h, v } = JSON.parse(line) as { h: string; v: string };
      const bytes = Buffer.from(v, "base64");
      vectors.set(h, new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)));
    } catch {
      // an interrupted write
    }
  }
  return vectors;
}

export function textHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}

export interface EmbeddingVectors {
  model: string;
  /** The vectors of `texts`, in order, embedding only those not cached. */
  of(texts: readonly string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/** Opens the chosen endpoint (starting the local encoder when asked) and its cache. */
export async function openEmbeddingVectors(repositoryRoot: string, choice: EmbeddingsChoice): Promise<EmbeddingVectors> {
  const local = choice.endpoint === "local" ? await startLocalEmbeddingsServer(repositoryRoot) : undefined;
  const baseUrl = local?.baseUrl ?? choice.endpoint;
  const model = choice.model ?? local?.model ?? "";
  const client = createModelClient({
    baseUrl,
    apiKey: choice.apiKey,
    model: "none",
    embeddingModel: model,
    timeoutMs: 300_000,
    allowLoopback: true,
    sources: { baseUrl: "env", apiKey: "env", model: "env", embeddingModel: "env" },
  });
  const folder = join(localEmbeddingsFolder(repositoryRoot), "vectors");
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${model.replace(/[^A-Za-z0-9._-]+/g, "_")}.jsonl`);
  const cached = existsSync(file) ? readCacheLines(readFileSync(file, "utf8")) : new Map<string, Float32Array>();
  return {
    model,
    of: (texts) => vectorsOf(client, cached, file, texts),
    close: async () => local?.close(),
  };
}

async function vectorsOf(client: ModelClient, cached: Map<string, Float32Array>, file: string, texts: readonly string[]): Promise<Float32Array[]> {
  const missing = [...new Set(texts.filter((text) => !cached.has(textHash(text))))];
  const started = performance.now();
  // A few hundred at a time, written as they come, so an interrupted run keeps what it embedded.
  for (let start = 0; start < missing.length; start += 256) {
    const batch = missing.slice(start, start + 256);
    const { vectors } = await client.embed(batch, { purpose: "bench" });
    batch.forEach((text, i) => {
      const vector = vectors[i];
      if (vector === undefined) return;
      cached.set(textHash(text), new Float32Array(vector));
      appendFileSync(file, cacheLine(text, vector));
    });
    console.error(`embedded ${Math.min(start + 256, missing.length)} / ${missing.length} texts (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  return texts.map((text) => {
    const vector = cached.get(textHash(text));
    if (vector === undefined) throw new Error(`no vector for ${text.slice(0, 60)}`);
    return vector;
  });
}
