// route-latency (bench/route-latency.ts): the tenants of each size, set up through the HTTP API, and one timed request of each kind.
import { addTools, addTrajectories, createGraph, END, type Trajectory } from "../../../functions/toolnet/graph";
import type { TestService } from "../../../test/helpers/service";
import { setUpTenant } from "../bench-service";
import { FLOOR_ORIGIN } from "../rpc-floor";
import { withContentLength } from "../sized-request";
import { corpusItems, recordedTrajectories, syntheticWalks, taskCycle, toolItems, type ListItem } from "../tool-corpus";
import { int, randomInt, seconds, seededRandom } from "../stats";
import { DEGREE, type Kind } from "./options";

/** Observed tool → tool edges (self-loops excluded) of the graph the tenant should now hold. */
export function edgeCount(names: readonly string[], trajectories: readonly Trajectory[]): { edges: number; transitions: number } {
  const graph = createGraph();
  addTools(graph, names);
  const result = addTrajectories(graph, trajectories, { unknownTools: "skip" });
  let edges = 0;
  for (const [from, node] of graph.tools) {
    for (const [to, edge] of node.out) if (to !== from && to !== END && edge.count > 0) edges += 1;
  }
  return { edges, transitions: result.transitions };
}

export interface Tenant {
  size: number;
  items: ListItem[];
  trajectoryList: Trajectory[];
  names: string[];
  edges: number;
  trajectories: number;
  setup: Awaited<ReturnType<typeof setUpTenant>>;
  headers: Record<string, string>;
  /** Length of the last retrieval answer, which the floor sent the route's bytes answers with. */
  lastRouteAnswerBytes: number;
  /** The same for the last fused later step. */
  lastFusedAnswerBytes: number;
  /** The task of the last first (retrieval) step: a chat's later steps route the task of its first step. */
  lastFirstStepTask: string | undefined;
  /** Tasks this tenant never routed recently (its object's memo of task rankings let them go), for first and fused steps. */
  freshTask: () => string;
}

/** One request timed from sending it to having read its whole answer, as a client does (no copy of the response). */
export async function timed(service: TestService, url: string, init: RequestInit): Promise<{ ms: number; status: number; text: string }> {
  const t0 = performance.now();
  const response = await service.mf.dispatchFetch(url, withContentLength(init) as never);
  const text = await response.text();
  return { ms: performance.now() - t0, status: response.status, text };
}

export const SERVICE_ORIGIN = "http://atc.test";

export async function setUpSize(service: TestService, size: number, queries: readonly string[]): Promise<Tenant> {
  const items = toolItems(size, corpusItems());
  const names = items.map((i) => i.name);
  const trajectories = [...recordedTrajectories(new Set(names)), ...syntheticWalks(names, DEGREE, size)];
  const expected = edgeCount(names, trajectories);
  console.log(
    `[${size} tools] ${int(trajectories.length)} trajectories, ${int(expected.transitions)} counted transitions, ${int(expected.edges)} observed tool→tool edges (${(expected.edges / size).toFixed(1)} per tool); importing…`,
  );
  const setup = await setUpTenant(service, `bench-${size}`, items, trajectories);
  if (setup.transitions !== expected.transitions) throw new Error(`service counted ${setup.transitions} transitions, expected ${expected.transitions}`);
  console.log(
    `[${size} tools] tools ${seconds(setup.toolImportMs)} (${setup.toolBatches} requests), trajectories ${seconds(setup.trajectoryImportMs)} (${setup.trajectoryBatches} requests)`,
  );
  const headers = { authorization: `Bearer ${setup.key}`, "content-type": "application/json" };
  return {
    size,
    items,
    trajectoryList: trajectories,
    names,
    edges: expected.edges,
    trajectories: trajectories.length,
    setup,
    headers,
    lastRouteAnswerBytes: 4_000,
    lastFusedAnswerBytes: 4_000,
    lastFirstStepTask: undefined,
    freshTask: taskCycle(queries, seededRandom(size)),
  };
}

/** One request of `kind` to `tenant`'s service, timed; anything but the expected answer throws. */
export async function request(
  service: TestService,
  tenant: Tenant,
  kind: Kind,
  random: () => number,
  queries: readonly string[],
): Promise<{ ms: number; bytes: number }> {
  let result: Awaited<ReturnType<typeof timed>>;
  // First and fused steps route a task not routed recently; a later step of a chat routes the task
  // of its first step (here the last first step's), after a random tool as "fused" does.
  const task =
    kind === "retrieval" || kind === "fused"
      ? tenant.freshTask()
      : kind === "fused, same chat"
        ? (tenant.lastFirstStepTask ?? tenant.freshTask())
        : (queries[randomInt(random, queries.length)] ?? "weather");
  if (kind === "auth only") {
    result = await timed(service, `${SERVICE_ORIGIN}/v1/tenant`, { headers: { authorization: tenant.headers.authorization ?? "" } });
  } else if (kind === "floor") {
    result = await timed(service, `${FLOOR_ORIGIN}/`, { method: "POST" });
  } else if (kind === "floor, route's bytes") {
    const headers = { ...tenant.headers, "x-floor-answer-bytes": String(tenant.lastRouteAnswerBytes) };
    result = await timed(service, `${FLOOR_ORIGIN}/`, { method: "POST", headers, body: JSON.stringify({ task, k: 8 }) });
  } else if (kind === "floor, fused bytes") {
    const headers = { ...tenant.headers, "x-floor-answer-bytes": String(tenant.lastFusedAnswerBytes) };
    const previousTool = tenant.names[randomInt(random, tenant.names.length)];
    result = await timed(service, `${FLOOR_ORIGIN}/`, { method: "POST", headers, body: JSON.stringify({ task, previousTool, k: 8 }) });
  } else {
    // graph: the paper's eq. 4 alone (today's later step); fused: learned transitions, task relevance and data flow.
    const previousTool = tenant.names[randomInt(random, tenant.names.length)];
    const body = kind === "graph" ? { task, previousTool, k: 8, mode: "graph" } : kind === "retrieval" ? { task, k: 8 } : { task, previousTool, k: 8 };
    result = await timed(service, `${SERVICE_ORIGIN}/v1/route`, { method: "POST", headers: tenant.headers, body: JSON.stringify(body) });
  }
  if (result.status !== 200) throw new Error(`${kind}: HTTP ${result.status} ${result.text.slice(0, 300)}`);
  if (kind === "graph" || kind === "fused" || kind === "fused, same chat" || kind === "retrieval") {
    const via = (JSON.parse(result.text) as { via?: string }).via;
    if (via !== (kind === "fused, same chat" ? "fused" : kind)) throw new Error(`${kind}: answered via ${String(via)}`);
  }
  const bytes = Buffer.byteLength(result.text);
  if (kind === "retrieval") {
    tenant.lastRouteAnswerBytes = bytes;
    tenant.lastFirstStepTask = task;
  }
  if (kind === "fused") tenant.lastFusedAnswerBytes = bytes;
  return { ms: result.ms, bytes };
}
