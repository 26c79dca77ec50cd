/** Transport errors of a connection the server closed while the client was still writing. */
const RESET_CODES = new Set(["ECONNRESET", "EPIPE"]);

function isReset(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return error instanceof TypeError && typeof cause?.code === "string" && RESET_CODES.has(cause.code);
}

/**
 * Sends a request the service refuses before reading its whole body (413 from Content-Length):
 * the service answers at once, and workerd may close the connection while the client is still
 * writing the body, which undici then reports as `fetch failed` (ECONNRESET) instead of the
 * answer — a race in the transport, not in the service. A reset is sent again (a few times), so
 * the answer the service gave is what a test checks.
 */
export async function sendRefusedEarly<T>(send: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await send();
    } catch (error) {
      if (!isReset(error) || attempt >= attempts) throw error;
    }
  }
}
