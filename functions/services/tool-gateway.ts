import { WorkerEntrypoint } from "cloudflare:workers";
import { tenantStub } from "../tenant-api/tenant-api";
import { runTurns } from "./run-turns";
import { invokeTool } from "./invoke";
import { callKey, type CallContext, type GatewayProps, type ToolCallAnswer } from "../sandbox/wire";

const MAX_ERROR_CHARS = 600;
const MAX_TRACE_RESULT_CHARS = 4_000;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… [cut: ${text.length - max} more characters]` : text;
}

/** A short JSON rendering of a result for the trace (full results go to the program only). */
function traceResult(value: unknown): unknown {
  const text = JSON.stringify(value) ?? "null";
  return text.length <= MAX_TRACE_RESULT_CHARS ? value : clip(text, MAX_TRACE_RESULT_CHARS);
}

/**
 * Answer one tool call of a generated program for tenant `tenantId`: the candidate set is
 * enforced, arguments are validated and the tenant's credential injected by the shared safe-call
 * path, and a non-GET call that already succeeded in an earlier attempt is answered from its
 * record instead of being sent again. Both ways a program reaches its tools end here.
 */
export async function answerToolCall(env: Env, tenantId: string, name: string, args: unknown, context: CallContext): Promise<ToolCallAnswer> {
  const props = { ...context, tenantId };
  const base = { tool: name, arguments: args, sent: false, replayed: false, durationMs: 0, bytes: 0, truncated: false };
  if (!props.allowed.includes(name)) {
    const error = `tool ${name} is not in this run's candidate set`;
    return { ok: false, error, trace: { ...base, ok: false, error } };
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    const error = `${name} takes one object of named arguments, e.g. tools.${name}({ ... })`;
    return { ok: false, error, trace: { ...base, ok: false, error } };
  }
  const key = callKey(name, args);
  const earlier = props.replay.find((record) => record.key === key);
  if (earlier !== undefined) {
    return {
      ok: true,
      value: earlier.value,
      trace: { ...base, replayed: true, ok: true, ...(earlier.status === undefined ? {} : { status: earlier.status }), result: traceResult(earlier.value) },
    };
  }
  // Answering a call is a run phase like the others: it waits its turn among run phases (run-turns.ts).
  await runTurns.take();
  const outcome = await invokeTool(env, props.tenantId, tenantStub(env, props.tenantId), name, args as Record<string, unknown>, {
    timeoutMs: props.timeoutMs,
    maxResponseBytes: props.maxResponseBytes,
  });
  if (!outcome.found) {
    const error = `tool ${name} does not exist (it may have been deleted)`;
    return { ok: false, error, trace: { ...base, ok: false, error } };
  }
  const { result } = outcome;
  const sent = result.error?.kind !== "invalid_arguments" && result.error?.kind !== "blocked_destination";
  const trace = {
    ...base,
    sent,
    ok: result.ok,
    ...(result.status === undefined ? {} : { status: result.status }),
    durationMs: result.durationMs,
    bytes: result.bytes,
    truncated: result.truncated,
    // A successful side effect keeps its whole result: a later attempt is answered with it.
    result: props.fullResults === true || (result.ok && result.request.method !== "GET") ? result.body : traceResult(result.body),
    method: result.request.method,
  };
  if (result.ok) return { ok: true, value: result.body, trace };
  const upstream = result.status === undefined ? "" : ` (HTTP ${result.status}: ${clip(JSON.stringify(result.body) ?? "", 300)})`;
  const error = clip(`${name} failed: ${result.error?.message ?? "unknown error"}${upstream}`, MAX_ERROR_CHARS);
  return { ok: false, error, trace: { ...trace, error } };
}

/**
 * The tools capability handed to a program isolate in the service's own process (`env.TOOLS`),
 * bound to one tenant when the isolate is created.
 */
export class ToolGateway extends WorkerEntrypoint<Env, GatewayProps> {
  async call(name: string, args: unknown, context: CallContext): Promise<ToolCallAnswer> {
    return answerToolCall(this.env, this.ctx.props.tenantId, name, args, context);
  }
}
