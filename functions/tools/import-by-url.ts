import { Failure } from "../common/failures";
import { allowedOrigins } from "./safe-call/allowed-origins";
import { localNameResolver } from "./safe-call/local-name-resolver";
import { guardedFetch, isGuardedFetchFailure } from "./safe-call/guarded-fetch";

/**
 * `POST /v1/tools/import {"format":"openapi"|"list","url":…}`: the document is fetched by the
 * service, through the destination guard (every redirect hop; private and internal addresses are
 * refused), under one deadline and a byte cap, then imported exactly as if it had been posted.
 */

/** Default cap on a fetched document: Microsoft Graph v1.0 (20 MB) fits, its beta (47 MB) does not. */
export const DEFAULT_IMPORT_URL_MAX_BYTES = 32 * 1024 * 1024;
export const DEFAULT_IMPORT_URL_TIMEOUT_MS = 30_000;

export interface ImportUrlLimits {
  maxBytes: number;
  timeoutMs: number;
}

/** The deployment's limits (`IMPORT_URL_MAX_BYTES`, `IMPORT_URL_TIMEOUT_MS`), else the defaults. */
export function importUrlLimits(env: { IMPORT_URL_MAX_BYTES?: string | undefined; IMPORT_URL_TIMEOUT_MS?: string | undefined }): ImportUrlLimits {
  const number = (value: string | undefined, fallback: number): number => {
    const parsed = Number(value);
    return value !== undefined && value !== "" && Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
  };
  return {
    maxBytes: number(env.IMPORT_URL_MAX_BYTES, DEFAULT_IMPORT_URL_MAX_BYTES),
    timeoutMs: number(env.IMPORT_URL_TIMEOUT_MS, DEFAULT_IMPORT_URL_TIMEOUT_MS),
  };
}

/** The document at `url` as text; a refused, failed or oversized fetch is a Failure naming why. */
export async function fetchSourceDocument(
  env: Env,
  url: string,
  limits: ImportUrlLimits,
  network: typeof fetch = (input, init) => fetch(input, init),
): Promise<string> {
  const decoder = new TextDecoder();
  const chunks = await fetchSourceBytes(env, url, limits, network);
  return chunks.map((chunk) => decoder.decode(chunk, { stream: true })).join("") + decoder.decode();
}

/** The document at `url` as the chunks it arrived in (a big one is stored as it is, for a background import). */
export async function fetchSourceBytes(
  env: Env,
  url: string,
  limits: ImportUrlLimits,
  network: typeof fetch = (input, init) => fetch(input, init),
): Promise<Uint8Array[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  const fetchGuarded = guardedFetch({
    fetch: network,
    allowedOrigins: allowedOrigins(env),
    resolveName: localNameResolver(env),
    signal: controller.signal,
    maxResponseBytes: limits.maxBytes,
  });
  try {
    const response = await fetchGuarded(url, { method: "GET", headers: { Accept: "application/json, application/yaml, text/yaml, */*" } });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Failure("upstream-error", `Fetching the document at ${url} failed: the server answered HTTP ${response.status}.`);
    }
    const chunks: Uint8Array[] = [];
    const reader = response.body?.getReader();
    for (let read = await reader?.read(); read !== undefined && !read.done; read = await reader?.read()) chunks.push(read.value);
    return chunks;
  } catch (error) {
    // The guarded fetch's own failures first: they are Failures too, but worded for a tool call.
    if (isGuardedFetchFailure(error)) {
      if (error.code === "blocked_destination") throw new Failure("invalid-request", `The document URL is refused: ${error.message}.`);
      if (error.code === "too_large") throw new Failure("invalid-request", `The document at ${url} is larger than ${limits.maxBytes} bytes, the import limit.`);
      throw new Failure("upstream-error", `Fetching the document at ${url} failed: ${error.message}.`);
    }
    if (error instanceof Failure) throw error;
    if (controller.signal.aborted) throw new Failure("upstream-error", `Fetching the document at ${url} took longer than ${limits.timeoutMs} ms.`);
    throw new Failure("upstream-error", `Fetching the document at ${url} failed: the server could not be reached.`);
  } finally {
    clearTimeout(timer);
  }
}
