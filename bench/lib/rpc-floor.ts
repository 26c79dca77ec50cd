/**
 * The platform floor for one tenant request: an HTTP request into a Worker that makes exactly one
 * Durable Object RPC, which adds 1 to a SQLite row. Same workerd and the same way in (Miniflare's
 * dispatchFetch) as the service, so a service path can be stated as a ratio of it in one run.
 */
import { Miniflare } from "miniflare";

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
    const n = await env.COUNTER.getByName("floor").add();
    return Response.json({ n });
  },
};
`;

export interface RpcFloor {
  /** One request: HTTP in, one RPC, one SQLite write; resolves to the counter's new value. */
  send(): Promise<number>;
  dispose(): Promise<void>;
}

export async function startRpcFloor(): Promise<RpcFloor> {
  const mf = new Miniflare({
    modules: true,
    script: FLOOR_WORKER,
    compatibilityDate: "2026-04-20",
    durableObjects: { COUNTER: { className: "Counter", useSQLite: true } },
  });
  await mf.ready;
  return {
    async send() {
      const response = await mf.dispatchFetch("http://floor.test/", { method: "POST" });
      return ((await response.json()) as { n: number }).n;
    },
    dispose: () => mf.dispose(),
  };
}
