// route-latency (bench/route-latency.ts): the benchmark's options and fixed settings, and the kinds of request it times.
export const DEGREE = 10;
export const WARMUP_ROUNDS = 100;
export const EVICTIONS = 5;

export function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

export type Kind = "graph" | "fused" | "fused, same chat" | "retrieval" | "auth only" | "floor" | "floor, route's bytes" | "floor, fused bytes";

export const KINDS: readonly Kind[] = ["graph", "fused", "fused, same chat", "retrieval", "auth only", "floor", "floor, route's bytes", "floor, fused bytes"];
