// route-latency (bench/route-latency.ts): the timed rounds over every (size, kind) pair, the cold starts, and the results per size.
import type { TestService } from "../../../test/helpers/service";
import { type setUpTenant, tenantObject } from "../bench-service";
import { descendantCpuMs, seededRandom, shuffle } from "../stats";
import { EVICTIONS, KINDS, WARMUP_ROUNDS, type Kind } from "./options";
import { inProcessRoute, type SearchTimes } from "./in-process";
import { reloadParts, type ReloadParts } from "./load-parts";
import { request, type Tenant } from "./tenants";

export interface SizeResult {
  tools: number;
  edges: number;
  trajectories: number;
  setup: Awaited<ReturnType<typeof setUpTenant>>;
  latencies: Map<Kind, number[]>;
  bytes: Map<Kind, number>;
  reload: {
    graph: number[];
    retrieval: number[];
    fused: number[];
    next: number[];
    rebuilt: number;
    reports: string[];
    graphStepLoads: string;
    cpu: { graph: number[]; retrieval: number[]; fused: number[]; rebuilt: number };
    fusedReports: string[];
  };
  parts: ReloadParts;
  /** The object's tool views in memory after the timed rounds (read in the background after an answer's first read). */
  viewsMemory: { remembered: number; chars: number; complete: boolean };
  inProcess: { graph: number[]; retrieval: number[]; search: SearchTimes };
}

/**
 * Every (size, kind) pair once per round, in a fresh random order each round, so that load drift
 * and workerd's JIT warming up affect all sizes alike.
 */
export async function measure(service: TestService, tenants: readonly Tenant[], rounds: number, queries: readonly string[]): Promise<SizeResult[]> {
  const random = seededRandom(20240601);
  const pairs = tenants.flatMap((tenant) => KINDS.map((kind) => ({ tenant, kind })));
  for (let i = 0; i < WARMUP_ROUNDS; i += 1) {
    for (const { tenant, kind } of shuffle([...pairs], random)) await request(service, tenant, kind, random, queries);
  }
  const latencies = new Map(tenants.map((t) => [t, new Map<Kind, number[]>(KINDS.map((k) => [k, []]))]));
  const bytes = new Map(tenants.map((t) => [t, new Map<Kind, number>(KINDS.map((k) => [k, 0]))]));
  for (let i = 0; i < rounds; i += 1) {
    for (const { tenant, kind } of shuffle([...pairs], random)) {
      const r = await request(service, tenant, kind, random, queries);
      latencies.get(tenant)?.get(kind)?.push(r.ms);
      const b = bytes.get(tenant);
      b?.set(kind, (b.get(kind) ?? 0) + r.bytes);
    }
  }
  // Read right after the timed rounds: an object left idle while other tenants are measured may be evicted.
  const warmth = new Map<Tenant, SizeResult["viewsMemory"]>();
  for (const tenant of tenants) {
    const { remembered, chars, complete } = await (await tenantObject(service, tenant.setup.tenantId)).toolViewsWarmth();
    warmth.set(tenant, { remembered, chars, complete });
  }
  const results: SizeResult[] = [];
  for (const tenant of tenants) {
    const object = await tenantObject(service, tenant.setup.tenantId);
    const reload = {
      graph: [] as number[],
      retrieval: [] as number[],
      fused: [] as number[],
      next: [] as number[],
      rebuilt: 0,
      reports: [] as string[],
      graphStepLoads: "",
      cpu: { graph: [] as number[], retrieval: [] as number[], fused: [] as number[], rebuilt: 0 },
      fusedReports: [] as string[],
    };
    const viewsMemory = warmth.get(tenant) ?? { remembered: 0, chars: 0, complete: false };
    const fusedReports = new Set<string>();
    const reports = new Set<string>();
    // workerd's CPU time for the request (10 ms ticks), beside the wall time, which waits for a core.
    const cold = async (kind: Kind): Promise<{ ms: number; cpu: number }> => {
      const cpu = descendantCpuMs();
      const r = await request(service, tenant, kind, random, queries);
      return { ms: r.ms, cpu: descendantCpuMs() - cpu };
    };
    for (let i = 0; i < EVICTIONS; i += 1) {
      await object.simulateEviction();
      const graphStep = await cold("graph");
      reload.graph.push(graphStep.ms);
      reload.cpu.graph.push(graphStep.cpu);
      // What the graph step loaded (the index and task memory wait for a step that needs them).
      const parts = await object.routingLoadedParts();
      reload.graphStepLoads = `graph${parts.index ? ", index" : ""}${parts.memory ? ", task memory" : ""}, ${parts.definitions} definitions`;
      reports.add(JSON.stringify(await object.routingLoadReport()));
      reload.next.push((await request(service, tenant, "graph", random, queries)).ms);
      await object.simulateEviction();
      const retrievalStep = await cold("retrieval");
      reload.retrieval.push(retrievalStep.ms);
      reload.cpu.retrieval.push(retrievalStep.cpu);
      // A later step after an eviction: the stored data-flow links are read back, not recomputed.
      await object.simulateEviction();
      const fusedStep = await cold("fused");
      reload.fused.push(fusedStep.ms);
      reload.cpu.fused.push(fusedStep.cpu);
      fusedReports.add((await object.routingLoadReport()).dataFlow);
    }
    reload.fusedReports = [...fusedReports];
    // As after a format change: rebuilt from the rows (and stored again).
    await object.simulateEviction({ olderFormats: true });
    const rebuilt = await cold("graph");
    reload.rebuilt = rebuilt.ms;
    reload.cpu.rebuilt = rebuilt.cpu;
    reload.reports = [...reports];
    results.push({
      tools: tenant.size,
      edges: tenant.edges,
      trajectories: tenant.trajectories,
      setup: tenant.setup,
      latencies: latencies.get(tenant) ?? new Map(),
      bytes: bytes.get(tenant) ?? new Map(),
      reload,
      viewsMemory,
      parts: reloadParts(tenant.items, tenant.trajectoryList),
      inProcess: inProcessRoute(tenant.items, tenant.trajectoryList, queries, rounds),
    });
  }
  return results;
}
