import type { MiddlewareHandler } from "hono";
import { sha256Hex } from "../../tenants/api-keys";
import type { AppEnv } from "../app-env";
import { Failure } from "../../common/failures";

/**
 * `Idempotency-Key` on tenant POSTs (IETF httpapi-idempotency-key-header semantics): the same key
 * with the same request replays the stored response (`Idempotent-Replayed: true`); the same key
 * with another request (method, path or body) answers 422; while the first is still being handled,
 * 409 with Retry-After. Only successful (2xx) responses are stored: a failed request changes
 * nothing, so its key may simply be sent again. Keys are per tenant and kept 24 hours.
 */

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
/** Responses larger than this are not kept (a Durable Object row holds at most 2 MB). */
const MAX_STORED_BODY_CHARS = 1_000_000;
const IN_FLIGHT_RETRY_SECONDS = 1;

export const idempotency: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = c.req.header("idempotency-key");
  if (c.req.method !== "POST" || key === undefined) return next();
  const tenant = c.var.tenant;
  if (!KEY_SHAPE.test(key))
    throw new Failure("invalid-request", "Idempotency-Key must be 1–255 visible ASCII characters.", [
      { path: "Idempotency-Key", message: "1–255 visible ASCII characters" },
    ]);

  const fingerprint = await sha256Hex(`${c.req.method} ${c.req.path}\n${await c.req.text()}`);
  const begun = await tenant.idempotency.begin(key, fingerprint, Date.now());
  if (begun.state === "mismatch") throw new Failure("idempotency-key-reused", "This Idempotency-Key was used for a different request.");
  if (begun.state === "in-flight")
    throw new Failure("request-in-progress", "A request with this Idempotency-Key is still being processed.", undefined, IN_FLIGHT_RETRY_SECONDS);
  if (begun.state === "replay") {
    const headers = new Headers({ "idempotent-replayed": "true" });
    if (begun.response.contentType !== null) headers.set("content-type", begun.response.contentType);
    return new Response(begun.response.body, { status: begun.response.status, headers });
  }

  try {
    await next();
  } catch (error) {
    await tenant.idempotency.abandon(key);
    throw error;
  }
  const response = c.res;
  if (response.status < 200 || response.status >= 300 || response.body === null) {
    await tenant.idempotency.abandon(key);
    return;
  }
  const contentType = response.headers.get("content-type");
  // A stream (runs with text/event-stream) is stored once it has been sent in full.
  const [toClient, toStore] = response.body.tee();
  c.res = new Response(toClient, response);
  const store = new Response(toStore).text().then(
    (body) =>
      body.length <= MAX_STORED_BODY_CHARS ? tenant.idempotency.complete(key, { status: response.status, contentType, body }) : tenant.idempotency.abandon(key),
    () => tenant.idempotency.abandon(key),
  );
  if (contentType?.startsWith("text/event-stream") === true) c.executionCtx.waitUntil(store);
  else await store;
};
