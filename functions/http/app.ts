import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import type { AppEnv, AppVariables } from "./app-env";
import { modelCallOf, modelCallProblem } from "../llm/errors";
import { limitRequestBody } from "./middleware/request-body";
import { IMPORT_UPLOAD_PATH } from "./endpoints/import-upload";
import { importUrlLimits } from "../tools/import-by-url";
import { redactText } from "../tools/safe-call/log-redaction.mjs";
import { Failure, type FailureData, type FailureKind } from "../common/failures";
import { PROBLEM_KINDS, problemResponse } from "./problem";

/** The first problem kind of each client-error status, for framework exceptions we do not name. */
const PROBLEM_KIND_BY_STATUS = new Map<number, FailureKind>(
  (Object.entries(PROBLEM_KINDS) as [FailureKind, { status: number }][])
    .filter(([, k]) => k.status >= 400 && k.status < 500)
    .reverse()
    .map(([kind, k]) => [k.status, kind]),
);

const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Turn zod issues into the problem's field list. */
export function issuesToErrors(issues: readonly { path: readonly PropertyKey[]; message: string }[]): { path: string; message: string }[] {
  return issues.map((issue) => ({ path: issue.path.map(String).join(".") || "(root)", message: issue.message }));
}

/** Map anything thrown in a handler to a problem; internal detail goes to the log only. */
export function toProblem(error: unknown): FailureData {
  // The model endpoint failed (after the client's retries): the upstream's problem, not ours.
  const model = modelCallOf(error);
  if (model !== undefined) return modelCallProblem(model, `The model endpoint failed: ${(error as Error).message}`);
  if (error instanceof Failure) {
    // An internal failure's cause (a run that failed on our side) is for the log, never the answer.
    if (error.kind === "internal" && error.cause !== undefined) logUnhandled(error.cause);
    return error.toData();
  }
  if (error instanceof HTTPException) {
    if (error.status === 400 && /malformed json/i.test(error.message)) {
      return { kind: "malformed-json", detail: "The request body is not valid JSON." };
    }
    if (error.status === 400) return { kind: "invalid-request", detail: error.message };
    if (error.status === 401) return { kind: "unauthorized", detail: error.message };
    if (error.status === 413) return { kind: "payload-too-large" };
    // Raised by the route's media-type gate: a JSON route got a body of another (or no) type.
    if (error.status === 415) return { kind: "unsupported-media-type", detail: "Send the request body as `Content-Type: application/json`." };
    const byStatus = PROBLEM_KIND_BY_STATUS.get(error.status);
    if (byStatus !== undefined) return { kind: byStatus, detail: error.message };
  }
  logUnhandled(error);
  return { kind: "internal", detail: "Something went wrong on our side." };
}

function logUnhandled(error: unknown): void {
  // Logs never carry a credential: URLs, bearer values and key shapes are scrubbed first.
  console.error("unhandled error", redactText(error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error)));
}

/**
 * A handler's call on a tenant that did not admit the request fails (its answer has no surface):
 * the answer is the refusal itself (auth.ts then counts a bad key), not an internal error.
 */
async function refusalOf(admission: AppVariables["admission"]): Promise<FailureData | undefined> {
  const refusal = await admission;
  if (refusal === undefined || "failed" in refusal) return undefined;
  return refusal.problem ?? { kind: "unauthorized", detail: "The API key is not valid." };
}

/** A router with the service's validation hook: the root app and every sub-app joined to it. */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        throw new Failure("invalid-request", "The request does not match the schema.", issuesToErrors(result.error.issues));
      }
    },
  });
}

/** The JSON body limit (`MAX_BODY_BYTES`, default 8 MiB); bigger documents import in the background. */
export function bodyLimitBytes(env: { MAX_BODY_BYTES?: string | undefined }): number {
  return Number(env.MAX_BODY_BYTES ?? DEFAULT_MAX_BODY_BYTES);
}

/** The root app: validation hook, body limit and error boundary; sub-apps are joined to it. */
export function createApp(): OpenAPIHono<AppEnv> {
  const app = createRouter();

  // Oversized bodies are refused from Content-Length (or while streaming) before any parsing, and
  // JSON API bodies nested too deep before anything parses them. (Media types are checked per
  // route by the zod-openapi gate: a route declaring a JSON body answers 415 to any other type;
  // see toProblem.) The middleware is made once per limit value, not per request.
  const limitBodies = new Map<number, ReturnType<typeof limitRequestBody>>();
  app.use("*", (c, next) => {
    // The upload route takes a big document as it is, up to the import limit, straight into storage.
    const maxSize = c.req.path === IMPORT_UPLOAD_PATH ? importUrlLimits(c.env).maxBytes : bodyLimitBytes(c.env);
    let limit = limitBodies.get(maxSize);
    if (limit === undefined) {
      limit = limitRequestBody(maxSize);
      limitBodies.set(maxSize, limit);
    }
    return limit(c, next);
  });

  // The service's own failures (auth's counted refusal included) stand; anything else a refused tenant caused (a call
  // on a surface that was never handed out) is the refusal.
  app.onError(async (error, c) => problemResponse((error instanceof Failure ? undefined : await refusalOf(c.var.admission)) ?? toProblem(error), c.req.path));
  app.notFound((c) => problemResponse({ kind: "not-found", detail: `No route ${c.req.method} ${c.req.path}.` }, c.req.path));
  return app;
}
