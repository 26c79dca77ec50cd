import type { ToolActivity } from "../../storage/tenant-activity";
import type { CurrentProtocol } from "../../storage/tenant-protocols";

/** documented: a protocol for the current definition; failed: the newest probe failed; never: neither. */
export type ProbeStatus = "documented" | "probing" | "failed" | "never";

export interface ToolStatusRow {
  name: string;
  operation: string;
  source: string;
  probe: ProbeStatus;
  probeError: string | null;
  /** A protocol exists, but for an older definition of the tool. */
  stale: boolean;
  version: number | null;
  versionSource: string | null;
  pinned: boolean;
  calls: number;
  successRate: number | null;
  recentScores: number[];
}

/** One row per tool from the registry, the current protocols and recent activity (pure). */
export function toolStatusRows(
  tools: { definition: { name: string; operation: string }; hash: string; source: string }[],
  current: CurrentProtocol[],
  activity: Record<string, ToolActivity>,
): ToolStatusRow[] {
  const protocols = new Map(current.map((p) => [p.tool, p]));
  return tools.map(({ definition, hash, source }) => {
    const protocol = protocols.get(definition.name);
    const seen = activity[definition.name];
    const documented = protocol !== undefined && protocol.hash === hash;
    const probe: ProbeStatus = documented ? "documented" : seen?.lastProbe === "probing" ? "probing" : seen?.lastProbe === "failed" ? "failed" : "never";
    const calls = seen?.calls ?? 0;
    return {
      name: definition.name,
      operation: definition.operation,
      source,
      probe,
      probeError: probe === "failed" ? (seen?.lastProbeError ?? null) : null,
      stale: protocol !== undefined && !documented,
      version: protocol?.version ?? null,
      versionSource: protocol?.source ?? null,
      pinned: protocol?.pinned ?? false,
      calls,
      successRate: calls === 0 ? null : (seen?.okCalls ?? 0) / calls,
      recentScores: seen?.recentScores ?? [],
    };
  });
}

/** A tool is shown as broken when it keeps failing: most recent calls failed, or its evaluator scores sink. */
export function isBroken(row: Pick<ToolStatusRow, "calls" | "successRate" | "probe">, score: number): boolean {
  if (score < 0) return true;
  if (row.calls >= 2 && row.successRate !== null && row.successRate < 0.5) return true;
  return row.probe === "failed";
}
