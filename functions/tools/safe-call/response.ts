import type { Redactor } from "./redact";

/**
 * Reading and interpreting a tool's response body, bounded in size.
 *
 * What `body` becomes:
 * - no bytes → `null`;
 * - truncated (more than maxResponseBytes) → the kept text plus a final line
 *   `[truncated: ...]`; never JSON-parsed, since a cut document is not the document;
 * - JSON content type (`application/json`, `*+json`) → the parsed value, or the text if it
 *   does not parse;
 * - no content type or `text/plain` whose text starts with `{` or `[` → parsed if it parses;
 * - obviously binary types (image, audio, video, font, octet-stream, pdf, zip) → a one-line note
 *   `[binary response omitted: <type>, <n> bytes]`;
 * - anything else → the text.
 * Every string in it has the credential scrubbed.
 */

export interface CappedBody {
  bytes: Uint8Array;
  truncated: boolean;
}

/**
 * Reads a stream until it ends or passes `cap` bytes, keeping at most `cap`. `guard` wraps each
 * read so the caller's timeout also interrupts a stalled body.
 */
export async function readCapped(stream: ReadableStream<Uint8Array> | null, cap: number, guard: <T>(step: Promise<T>) => Promise<T>): Promise<CappedBody> {
  if (stream === null) return { bytes: new Uint8Array(0), truncated: false };
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await guard(reader.read());
      if (done) break;
      const room = cap - total;
      if (value.byteLength > room) {
        if (room > 0) chunks.push(value.subarray(0, room));
        total += Math.max(room, 0);
        truncated = true;
        break;
      }
      chunks.push(value);
      total += value.byteLength;
    }
  } catch (error) {
    stop(reader);
    throw error;
  }
  if (truncated) stop(reader);
  return { bytes: concat(chunks, total), truncated };
}

/** Stops the upstream instead of draining it; not awaited, since a stalled stream may never settle. */
function stop(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  reader.cancel().catch(() => undefined);
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

const BINARY = /^(?:image|audio|video|font)\/|^application\/(?:octet-stream|pdf|zip|gzip|x-gzip|x-tar|wasm|x-protobuf|vnd\.ms-excel)$/;

/** Turns the kept bytes into the `body` value described at the top of this file. */
export function interpretBody(read: CappedBody, contentType: string | undefined, cap: number, redact: Redactor): unknown {
  if (read.bytes.byteLength === 0 && !read.truncated) return null;
  const media = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (BINARY.test(media)) return `[binary response omitted: ${media}, ${read.bytes.byteLength} bytes]`;

  // stream:true holds back a multi-byte character cut in half by truncation instead of emitting U+FFFD.
  const text = decoderFor(contentType).decode(read.bytes, { stream: read.truncated });
  if (read.truncated) {
    return `${redact.trimPartial(redact.text(text))}\n[truncated: the response was larger than ${cap} bytes; only the first ${read.bytes.byteLength} bytes are shown]`;
  }
  const looksJson = media === "application/json" || media.endsWith("+json") || media === "text/json";
  const mightBeJson = (media === "" || media === "text/plain") && /^\s*[[{]/.test(text);
  if (looksJson || mightBeJson) {
    try {
      return redact.data(JSON.parse(text));
    } catch {
      // Not JSON after all: fall through to text, the caller still sees what came back.
    }
  }
  return redact.text(text);
}

function decoderFor(contentType: string | undefined): TextDecoder {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1];
  if (charset !== undefined) {
    try {
      return new TextDecoder(charset);
    } catch {
      // Unknown or unsupported label in this runtime: UTF-8 is the best guess.
    }
  }
  return new TextDecoder("utf-8");
}
