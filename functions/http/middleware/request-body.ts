import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../app-env";
import { problemResponse } from "../problem";
import { Failure } from "../../common/failures";
import { jsonNestingDepth, MAX_JSON_DEPTH } from "./json-depth";

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/** True when a request body would be read as JSON: declared JSON, or no type at all. */
function readAsJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  return JSON_MEDIA_TYPE.test(contentType.split(";")[0]?.trim() ?? "");
}

/** The JSON API: its bodies are read as text by the route's validator, never as a raw stream. */
function isJsonApiPath(path: string): boolean {
  // The upload route's body is a document stored as it streams in, never parsed whole.
  if (path === "/v1/tools/import/upload") return false;
  return path.startsWith("/v1/") || path.startsWith("/admin/");
}

/** The body as text, decoded as it streams in; undefined as soon as it passes `maxSize` bytes. */
async function readBoundedText(body: ReadableStream<Uint8Array>, maxSize: number): Promise<string | undefined> {
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxSize) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join("");
}

/**
 * Request bodies, before any handler: more than `maxSize` bytes gets 413 (from Content-Length, or
 * while a chunked body streams in), and on the JSON API (`/v1/*`, `/admin/*`) a JSON body nested
 * deeper than MAX_JSON_DEPTH gets 400 before anything parses it. A JSON API body is read once, as
 * text, into Hono's body cache, where the route's validator finds it; a chunked one is not copied
 * into a new Request first (Hono's `bodyLimit` does that, which costs a sent-as-chunked route
 * request about a tenth of a millisecond). Other bodies (the MCP server reads the raw request) go
 * through `bodyLimit` unchanged.
 */
export function limitRequestBody(maxSize: number): MiddlewareHandler<AppEnv> {
  const tooLarge = (c: Context<AppEnv>): Response =>
    problemResponse({ kind: "payload-too-large", detail: `The request body exceeds ${maxSize} bytes.` }, c.req.path);
  const streamed = bodyLimit({ maxSize, onError: tooLarge });
  return async (c, next) => {
    const body = c.req.raw.body;
    if (body === null) return next();
    const jsonApi = BODY_METHODS.has(c.req.method) && isJsonApiPath(c.req.path) && readAsJson(c.req.header("content-type"));
    const sized = c.req.raw.headers.has("content-length") && !c.req.raw.headers.has("transfer-encoding");
    if (sized && Number.parseInt(c.req.raw.headers.get("content-length") ?? "0", 10) > maxSize) return tooLarge(c);
    if (!jsonApi) return sized ? next() : streamed(c, next);
    let text: string;
    if (sized) {
      text = await c.req.text();
    } else {
      const read = await readBoundedText(body, maxSize);
      if (read === undefined) return tooLarge(c);
      text = read;
      // Hono keeps promises in its body cache (its types say values): `text()` and `json()` await this one.
      (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
    }
    if (jsonNestingDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
      throw new Failure("json-too-deep", `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`);
    }
    return next();
  };
}
