/**
 * What holds a background job's live heap, from V8's sampling heap profiler (through workerd's
 * inspector, `HeapProfiler.startSampling`): it samples allocations about every `interval` bytes
 * and drops a sample when its object is collected, so a profile taken right after a full
 * collection says where what is still live was allocated. Bytes are the samples' sizes (an
 * estimate of the live heap, good for shares, not to the byte).
 */

export interface HeapSamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapSamplingNode[];
}

export interface HeapSamplingProfile {
  head: HeapSamplingNode;
}

/** The sampling interval (bytes): V8's default, fine enough for sites of a few hundred KiB. */
export const HEAP_SAMPLING_BYTES = 32 * 1024;

/** Frames that name no code of the project (the runtime's own, anonymous closures). */
function named(frame: HeapSamplingNode["callFrame"]): boolean {
  return frame.functionName !== "" && !frame.functionName.startsWith("(");
}

/**
 * Live sampled bytes per function: inclusive (allocated anywhere below it; a function counted once
 * per allocation even when it recurses) and self-with-callers (the allocating function and its two
 * named callers: the site).
 */
export function liveBySite(profile: HeapSamplingProfile): { total: number; inclusive: Map<string, number>; sites: Map<string, number> } {
  const inclusive = new Map<string, number>();
  const sites = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapSamplingNode, stack: string[]): void => {
    const frames = named(node.callFrame) ? [...stack, node.callFrame.functionName] : stack;
    if (node.selfSize > 0) {
      total += node.selfSize;
      for (const name of new Set(frames)) inclusive.set(name, (inclusive.get(name) ?? 0) + node.selfSize);
      const site = frames.slice(-3).reverse().join(" ← ") || "(runtime)";
      sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, frames);
  };
  walk(profile.head, []);
  return { total, inclusive, sites };
}

/** The `top` biggest entries as lines: MiB and share of the sampled live bytes. */
export function heapLines(profile: HeapSamplingProfile, top: number): string[] {
  const { total, inclusive, sites } = liveBySite(profile);
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1).padStart(6)} MiB ${((100 * bytes) / Math.max(1, total)).toFixed(0).padStart(3)} %`;
  const biggest = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `  live heap sampled: ${(total / 1024 / 1024).toFixed(1)} MiB`,
    "  by function, inclusive (allocated anywhere below it):",
    ...biggest(inclusive).map(([name, bytes]) => `    ${mib(bytes)}  ${name}`),
    "  by site (allocating function ← its named callers):",
    ...biggest(sites).map(([name, bytes]) => `    ${mib(bytes)}  ${name}`),
  ];
}
