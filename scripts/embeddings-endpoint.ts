import { z } from "zod";
import { countTokens } from "../functions/text/token-count";

/**
 * An OpenAI-compatible `POST /v1/embeddings` (and `GET /v1/models`) in front of any embedder, as a
 * fetch-style handler: `scripts/serve-embeddings.mjs` serves a local sentence encoder behind it,
 * so the embeddings path of routing can be tried with no model service. Pure: the embedder is
 * passed in.
 */

/** Turns texts into vectors of one length, in order. */
export type Embedder = (texts: string[]) => Promise<number[][]>;

/** Inputs per request: OpenAI's own limit. */
export const MAX_INPUTS = 2_048;
/** Characters per input; the local encoders read far less than this anyway. */
export const MAX_INPUT_CHARS = 32_000;

const EmbeddingsRequest = z.object({
  model: z.string().min(1).optional(),
  input: z.union([z.string(), z.array(z.string()).min(1).max(MAX_INPUTS)]),
  encoding_format: z.enum(["float", "base64"]).optional(),
  dimensions: z.number().int().positive().optional(),
  user: z.string().optional(),
});

export interface EmbeddingsEndpoint {
  /** The name answered as `model` and listed by `GET /v1/models`. */
  model: string;
  embed: Embedder;
}

/** The problems this endpoint answers, as the service names them (functions/http/problem.ts). */
const PROBLEMS = {
  "malformed-json": { status: 400, title: "Malformed JSON" },
  "invalid-request": { status: 400, title: "Invalid request" },
  "not-found": { status: 404, title: "Not found" },
  "method-not-allowed": { status: 405, title: "Method not allowed" },
  internal: { status: 500, title: "Internal error" },
} as const;

/**
 * A bad request as RFC 9457 problem details, with OpenAI's `error` object as an extension member
 * so OpenAI clients show the message too.
 */
function problem(kind: keyof typeof PROBLEMS, detail: string): Response {
  const { status, title } = PROBLEMS[kind];
  const error = { message: detail, type: kind === "internal" ? "server_error" : "invalid_request_error", code: null };
  const body = { type: `https://atc-edge.dev/problems/${kind}`, title, status, detail, error };
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/problem+json" } });
}

/** Float32 little-endian bytes in base64, as OpenAI sends `encoding_format: "base64"`. */
export function vectorAsBase64(vector: readonly number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString("base64");
}

/** The answer to one embeddings request: vectors in input order, with the tokens of the inputs (o200k_base, the service's own count). */
export function embeddingsResponse(model: string, inputs: readonly string[], vectors: readonly number[][], format: "float" | "base64" = "float") {
  const tokens = inputs.reduce((sum, text) => sum + countTokens(text), 0);
  return {
    object: "list" as const,
    data: vectors.map((vector, index) => ({ object: "embedding" as const, index, embedding: format === "base64" ? vectorAsBase64(vector) : vector })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/** Handles one request: `POST /v1/embeddings`, `GET /v1/models`; anything else is a problem. */
export async function handleEmbeddingsRequest(endpoint: EmbeddingsEndpoint, request: Request): Promise<Response> {
  const path = new URL(request.url).pathname.replace(/\/+$/, "");
  if (path === "/v1/models" && request.method === "GET") {
    return Response.json({ object: "list", data: [{ id: endpoint.model, object: "model", created: 0, owned_by: "local" }] });
  }
  if (path !== "/v1/embeddings") return problem("not-found", `This server answers POST /v1/embeddings and GET /v1/models, not ${request.method} ${path}.`);
  if (request.method !== "POST") return problem("method-not-allowed", "Use POST for embeddings.");
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return problem("malformed-json", "The body is not JSON.");
  }
  const parsed = EmbeddingsRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return problem("invalid-request", `Not an embeddings request: ${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}.`);
  }
  const inputs = typeof parsed.data.input === "string" ? [parsed.data.input] : parsed.data.input;
  const tooLong = inputs.findIndex((text) => text.length > MAX_INPUT_CHARS);
  if (tooLong >= 0) return problem("invalid-request", `input[${tooLong}] is longer than ${MAX_INPUT_CHARS} characters.`);
  if (parsed.data.model !== undefined && parsed.data.model !== endpoint.model) {
    return problem("not-found", `This server embeds with ${endpoint.model}, not ${parsed.data.model}.`);
  }
  let vectors: number[][];
  try {
    vectors = await endpoint.embed(inputs);
  } catch (error) {
    return problem("internal", `The encoder failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (parsed.data.dimensions !== undefined && parsed.data.dimensions !== vectors[0]?.length) {
    return problem("invalid-request", `This model makes vectors of ${vectors[0]?.length ?? 0} dimensions only.`);
  }
  return Response.json(embeddingsResponse(endpoint.model, inputs, vectors, parsed.data.encoding_format));
}
