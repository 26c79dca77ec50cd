import type { MiddlewareHandler } from "hono";
import { runTurns } from "../../services/run-turns";
import type { AppEnv } from "../app-env";

/**
 * A run request (`POST /v1/runs`) waits its turn in run turns (services/run-turns.ts) before its
 * key check and admission, so runs arriving together take turns from their very first phase,
 * between other requests, instead of each doing that work as it arrives. Anything else passes.
 */
export const runRequestsTakeTurns: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method === "POST") await runTurns.take();
  await next();
};
