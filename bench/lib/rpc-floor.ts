/**
 * The platform floor for one tenant request: an HTTP request into a Worker that makes exactly one
 * Durable Object RPC, which adds 1 to a SQLite row. It runs in the service's own workerd process
 * (an extra Worker of the bench's Miniflare, reached by its route) and is reached the same way
 * (Miniflare's dispatchFetch), so a service path can be stated as a ratio of it in one run, with
 * both sharing one process's scheduling. (In a workerd of its own it was slower than the service's
 * authenticated `GET /v1/tenant` on this loaded 2-core machine: a yardstick that flattered.)
 */
import type { WorkerOptions } from "miniflare";
import type { TestService } from "../../test/helpers/service";

/** Where the floor answers, in the Miniflare of a service started with `rpcFloorWorker()`. */
export const FLOOR_ORIGIN = "http://floor.bench.test";

const FLOOR_WORKER = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
    ctx.storage.sql.exec("INSERT OR IGNORE INTO counter (id, n) VALUES (1, 0)");
  }
  add() {
    return this.ctx.storage.sql.exec("UPDATE counter SET n = n + 1 WHERE id = 1 RETURNING n").one().n;
  }
}
export default {
  async fetch(request, env) {
    await request.arrayBuffer();
    const n = await env.COUNTER.getByName("floor").add();
    // An answer as long as the one it stands in for (x-floor-answer-bytes), else a short one.
    const wanted = Number(request.headers.get("x-floor-answer-bytes") ?? 0);
    const short = JSON.stringify({ n });
    return new Response(wanted > short.length + 10 ? JSON.stringify({ n, pad: "x".repeat(wanted - short.length - 10) }) : short, { headers: { "content-type": "application/json" } });
  },
};
`;

/** The floor as a Worker for `startService({ extraWorkers })`. */
export function rpcFloorWorker(): WorkerOptions {
  return {
    name: "rpc-floor",
    modules: true,
    script: FLOOR_WORKER,
    compatibilityDate: "2026-04-20",
    routes: [`${new URL(FLOOR_ORIGIN).host}/*`],
    durableObjects: { COUNTER: { className: "Counter", useSQLite: true } },
  };
}

/**
 * One request to the floor of a service started with `rpcFloorWorker()`: HTTP in (the body read
 * whole), one RPC, one SQLite write; resolves to the counter's new value. `init` sends the same
 * headers and body as the request it is compared with; without it, an empty POST. A header
 * `x-floor-answer-bytes: N` makes the answer N bytes long, as long as the answer it stands in for.
 */
export async function sendToFloor(service: TestService, init: { headers?: Record<string, string>; body?: string } = {}): Promise<number> {
  const response = await service.mf.dispatchFetch(`${FLOOR_ORIGIN}/`, { method: "POST", ...init });
  return ((await response.json()) as { n: number }).n;
}
