import type { Hono } from "hono";
import type { AppEnv } from "../app-env";
import type { Session } from "./session";

/** What the console does with an answer of the service's own API. */
export type ApiAnswer<T> = { ok: true; status: number; data: T } | { ok: false; status: number; message: string };

/** The service's Hono app, as far as the console calls it. */
export type ServiceFetcher = Pick<Hono<AppEnv>, "fetch">;

/** The console request an API call is made for: its URL (for the origin), bindings and context. */
export interface RequestScope {
  url: string;
  env: Env;
  executionCtx: Parameters<ServiceFetcher["fetch"]>[2];
}

/**
 * The console is a client of the service's own HTTP API, called in-process with the session's
 * credential: actions (probe, optimise, pin, runs) go through exactly the validation, limits
 * and problem answers the API gives everyone, and the console re-implements none of it. A
 * problem becomes a sentence for the page, never raw JSON.
 */
export class ServiceApi {
  readonly #service: ServiceFetcher;
  readonly #request: RequestScope;
  readonly #session: Session;

  constructor(service: ServiceFetcher, request: RequestScope, session: Session) {
    this.#service = service;
    this.#request = request;
    this.#session = session;
  }

  /**
   * The raw response, for streams (a run's server-sent events) and the API proxy. An object body
   * is sent as JSON; a string body is sent as it is, with its own content type.
   */
  async send(method: string, path: string, body?: unknown, accept = "application/json", contentType?: string): Promise<Response> {
    const credential = this.#session.kind === "tenant" ? this.#session.key : this.#session.token;
    const headers: Record<string, string> = { authorization: `Bearer ${credential}`, accept };
    const text = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    if (text !== undefined) headers["content-type"] = typeof body === "string" && contentType !== undefined ? contentType : "application/json";
    const request = new Request(new URL(path, this.#request.url), {
      method,
      headers,
      ...(text === undefined ? {} : { body: text }),
    });
    return this.#service.fetch(request, this.#request.env, this.#request.executionCtx);
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> {
    return readAnswer<T>(await this.send(method, path, body));
  }
}

/** A response of the API as data, or as a sentence when it is a problem. */
export async function readAnswer<T>(response: Response): Promise<ApiAnswer<T>> {
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (response.ok) return { ok: true, status: response.status, data: parsed as T };
  return { ok: false, status: response.status, message: problemMessage(parsed, response.status) };
}

/** A problem document as one readable sentence: its detail and any field errors. */
export function problemMessage(problem: unknown, status: number): string {
  if (typeof problem !== "object" || problem === null) return `The service answered ${status}.`;
  const { title, detail, errors } = problem as { title?: unknown; detail?: unknown; errors?: unknown };
  const head = typeof detail === "string" ? detail : typeof title === "string" ? title : `The service answered ${status}.`;
  const fields = Array.isArray(errors)
    ? errors.flatMap((e) =>
        typeof e === "object" && e !== null && "message" in e ? [`${String((e as { path?: unknown }).path ?? "")}: ${String(e.message)}`] : [],
      )
    : [];
  return fields.length === 0 ? head : `${head} (${fields.join("; ")})`;
}
