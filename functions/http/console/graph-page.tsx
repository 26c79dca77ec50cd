import type { Hono } from "hono";
import { tenantOf, type ConsoleEnv } from "./context";
import { loadToolRows } from "./tool-pages";
import { graphView } from "./graph-view";
import { GraphPage } from "./views/graph";

export function registerGraphPage(app: Hono<ConsoleEnv>): void {
  app.get("/graph", async (c) => {
    const { tenant } = tenantOf(c);
    const [rows, weighted] = await Promise.all([loadToolRows(c), tenant.routing.weightedEdges()]);
    return c.html(<GraphPage session={c.var.session} graph={graphView(rows, weighted)} />);
  });
}
