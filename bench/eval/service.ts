/**
 * The service under evaluation: the real bundled Worker in workerd (Miniflare, via
 * `test/helpers/service.ts`), with the simulated tool world as its only tool destination.
 *
 * Outbound network of the service goes to a function here, never straight to the internet:
 * - scripted mode: requests to `model.atc.test` are answered by the scripted model;
 * - model mode: requests to the host of `EVAL_MODEL_BASE_URL` are forwarded with Node's `fetch`;
 * - anything else is refused (599) and counted, so nothing but model traffic leaves the machine.
 * Tool calls to the simulated world do not pass through here: they use the SIMULATED_WORLD binding.
 */
import { MODEL_BASE_URL, startService, type TestService } from "../../test/helpers/service";
import type { ScriptedModel } from "../../test/helpers/scripted-model";

export interface RemoteModel {
  baseUrl: string;
  apiKey: string;
  name: string;
}

export type ModelChoice = { kind: "scripted"; model: ScriptedModel } | { kind: "remote"; model: RemoteModel };

/** What left (or tried to leave) the service, by kind. */
export interface OutboundCounters {
  /** Chat/embedding requests of runs (generation, revision, attribution). */
  modelRequests: number;
  /** Background ToolNet evaluator requests (not part of any run's usage). */
  evaluatorRequests: number;
  /** Refused: anything not addressed to the model host. */
  refused: { method: string; url: string }[];
}

export interface EvalService {
  service: TestService;
  counters: OutboundCounters;
  choice: ModelChoice;
  dispose(): Promise<void>;
}

/** Read the model of a non-scripted evaluation from the environment. */
export function remoteModelFromEnv(env: NodeJS.ProcessEnv = process.env): RemoteModel {
  const baseUrl = env.EVAL_MODEL_BASE_URL;
  const apiKey = env.EVAL_MODEL_API_KEY;
  const name = env.EVAL_MODEL_NAME;
  const missing = [
    ["EVAL_MODEL_BASE_URL", baseUrl],
    ["EVAL_MODEL_API_KEY", apiKey],
    ["EVAL_MODEL_NAME", name],
  ]
    .filter(([, v]) => v === undefined || v === "")
    .map(([k]) => k);
  if (missing.length > 0) throw new Error(`set ${missing.join(", ")} (an OpenAI-compatible endpoint), or pass --scripted`);
  return { baseUrl: (baseUrl ?? "").replace(/\/+$/, ""), apiKey: apiKey ?? "", name: name ?? "" };
}

// Hop-by-hop or encoding headers that must not be copied onto a re-built response: Node's fetch
// has already decoded the body, so a `content-encoding: gzip` would make workerd decode it again.
const DROPPED_RESPONSE_HEADERS = new Set(["content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"]);

async function forward(request: Request): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.delete("host");
  headers.delete("content-length");
  headers.delete("accept-encoding");
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  const response = await fetch(request.url, { method: request.method, headers, ...(body === undefined ? {} : { body }), redirect: "manual" });
  const out = new Headers();
  response.headers.forEach((value, name) => {
    if (!DROPPED_RESPONSE_HEADERS.has(name.toLowerCase())) out.set(name, value);
  });
  return new Response(await response.arrayBuffer(), { status: response.status, headers: out });
}

async function isEvaluatorRequest(request: Request): Promise<boolean> {
  if (request.method !== "POST") return false;
  try {
    return (await request.clone().text()).includes("You are a tool evaluator");
  } catch {
    return false;
  }
}

/**
 * Start the service in workerd with the chosen model. Bundles must exist (`.test-build/`).
 * `extraBindings` are added to the Worker's vars (e.g. `SANDBOX_ISOLATE`).
 */
export async function startEvalService(choice: ModelChoice, extraBindings: Record<string, string> = {}): Promise<EvalService> {
  const counters: OutboundCounters = { modelRequests: 0, evaluatorRequests: 0, refused: [] };
  const modelHost = choice.kind === "scripted" ? new URL(MODEL_BASE_URL).host : new URL(choice.model.baseUrl).host;
  const bindings: Record<string, string> = {
    ...extraBindings,
    ...(choice.kind === "scripted" ? {} : { MODEL_BASE_URL: choice.model.baseUrl, MODEL_API_KEY: choice.model.apiKey, MODEL_NAME: choice.model.name }),
  };
  const service = await startService({
    bindings,
    outbound: async (request) => {
      const url = new URL(request.url);
      if (url.host !== modelHost) {
        counters.refused.push({ method: request.method, url: request.url });
        return new Response(JSON.stringify({ error: `the evaluation lets only the model host out, not ${url.host}` }), { status: 599 });
      }
      if (await isEvaluatorRequest(request)) counters.evaluatorRequests++;
      else counters.modelRequests++;
      return choice.kind === "scripted" ? choice.model.handle(request) : forward(request);
    },
  });
  return { service, counters, choice, dispose: () => service.dispose() };
}
