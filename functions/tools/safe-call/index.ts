import { TOOL_CALL_DEFAULTS } from "../../common/run-defaults";
import type { ToolDefinition } from "../definition";
import { validateArguments } from "./arguments";
import { redactorFor } from "./redact";
import type { Redactor } from "./redact";
import { guardWith } from "./deadline";
import { allowedOriginMap, deliver } from "./redirects";
import { buildRequest } from "./request";
import { causeOfEdgeResponse, causeOfThrown, explainCause } from "./failure-cause";
import { interpretBody, readCapped } from "./response";
import type { SafeCallOptions, ToolCallError, ToolCallResult } from "./types";

/**
 * Calling a tool: validate the arguments, build the request, check the destination (every hop),
 * fetch under one timeout, read a bounded body. Expected failures come back as `ok: false` results;
 * only programming errors (e.g. a malformed `allowedOrigins` key) throw.
 */

export { validateArguments } from "./arguments";
export type { ArgumentCheck } from "./arguments";
export { checkDestination } from "./destination";
export type { DestinationCheck, DestinationOptions } from "./destination";
export { guardedFetch, type GuardedFetchOptions } from "./guarded-fetch";
export type {
  FetchFn,
  InjectedCredential,
  NameResolver,
  SafeCallOptions,
  ToolCallError,
  ToolCallErrorKind,
  ToolCallResult,
} from "./types";

export const DEFAULT_TIMEOUT_MS = TOOL_CALL_DEFAULTS.timeoutMs;
export const DEFAULT_MAX_RESPONSE_BYTES = TOOL_CALL_DEFAULTS.maxResponseBytes;
export const DEFAULT_MAX_REDIRECTS = 5;

/** Calls `def` with `args` on behalf of a tenant; never throws for expected failures. */
export async function callTool(def: ToolDefinition, args: Record<string, unknown>, options: SafeCallOptions): Promise<ToolCallResult> {
  const started = Date.now();
  const redact = redactorFor(options.credential?.value);
  const allowed = allowedOriginMap(options.allowedOrigins);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const cap = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  let request: ToolCallResult["request"] = { method: def.method, url: redact.text(`${def.serverUrl}${def.path}`) };
  const fail = (error: ToolCallError, extra: Partial<ToolCallResult> = {}): ToolCallResult => ({
    ok: false,
    body: null,
    truncated: false,
    bytes: 0,
    ...extra,
    durationMs: Date.now() - started,
    request,
    error: { ...error, message: redact.text(error.message) },
  });

  const checked = validateArguments(def, args);
  if (!checked.ok) return fail(errorOf(checked));
  const built = buildRequest(def, checked.values, options.credential);
  if (!built.ok) return fail(errorOf(built));
  request = { method: built.request.method, url: redact.text(built.request.url.href) };

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const guard = guardWith(controller.signal);
  let status: number | undefined;
  try {
    const delivery = await deliver(built.request, {
      fetch: options.fetch,
      allowed,
      maxRedirects: options.maxRedirects ?? DEFAULT_MAX_REDIRECTS,
      signal: controller.signal,
      guard,
      resolveName: options.resolveName,
    });
    if (delivery.url.href !== built.request.url.href) request = { ...request, finalUrl: redact.text(delivery.url.href) };
    if (!delivery.ok && delivery.kind === "network") {
      return fail({ kind: "network", cause: delivery.cause, message: `request failed: ${explainCause(delivery.cause)} (${delivery.message})` });
    }
    if (!delivery.ok) return fail({ kind: delivery.kind, message: delivery.message });

    const { response } = delivery;
    status = response.status;
    const contentType = response.headers.get("Content-Type") ?? undefined;
    const read = await readCapped(response.body, cap, guard);
    const result: ToolCallResult = {
      ok: response.ok,
      status,
      body: interpretBody(read, contentType, cap, redact),
      truncated: read.truncated,
      bytes: read.bytes.byteLength,
      durationMs: Date.now() - started,
      ...(contentType !== undefined ? { contentType: redact.text(contentType) } : {}),
      request,
    };
    if (!response.ok) {
      const answered = `the tool answered HTTP ${status}${response.statusText ? ` ${response.statusText}` : ""}`;
      const edgeCause = causeOfEdgeResponse(status, new TextDecoder().decode(read.bytes.subarray(0, 200)));
      result.error =
        edgeCause === undefined
          ? { kind: "http_status", message: redact.text(answered) }
          : { kind: "http_status", cause: edgeCause, message: redact.text(`${answered}: ${explainCause(edgeCause)}`) };
    }
    return result;
  } catch (error) {
    const extra = status !== undefined ? { status } : {};
    if (controller.signal.aborted) {
      return fail({ kind: "timeout", cause: "timeout", message: `no complete response within ${timeoutMs} ms` }, extra);
    }
    const cause = causeOfThrown(error);
    return fail({ kind: "network", cause, message: `request failed: ${explainCause(cause)} (${describe(error, redact)})` }, extra);
  } finally {
    clearTimeout(timer);
  }
}

/** Narrows the validation/build failure shape to the result's error shape. */
function errorOf(failure: { kind: ToolCallError["kind"]; message: string; argument?: string }): ToolCallError {
  return { kind: failure.kind, message: failure.message, ...(failure.argument !== undefined ? { argument: failure.argument } : {}) };
}

function describe(error: unknown, redact: Redactor): string {
  if (error instanceof Error) {
    // undici hides the real reason in `cause` ("fetch failed" → ECONNREFUSED …).
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return redact.text(`${error.message}${cause}`);
  }
  return redact.text(String(error));
}
