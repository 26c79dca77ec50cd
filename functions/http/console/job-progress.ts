import type { JobRecord } from "../../storage/tenant-jobs";

/** One tool's share of a job, as the progress bars show it. */
export interface ToolProgress {
  tool: string;
  /** pending, probing, probed, failed (probe jobs); queued, playing, done (optimise jobs). */
  status: string;
  /** 0..1 */
  fraction: number;
  note: string | null;
}

export interface JobProgress {
  id: string;
  kind: string;
  status: string;
  finished: boolean;
  /** 0..1 over all tools */
  fraction: number;
  tools: ToolProgress[];
  lastError: string | null;
}

const DEFAULT_PLAY_DEPTH = 5;
const FINISHED_ITEM = new Set(["probed", "failed"]);

function itemNote(detail: unknown): string | null {
  if (typeof detail !== "object" || detail === null) return null;
  const { error, how } = detail as { error?: unknown; how?: unknown };
  if (typeof error === "string") return error;
  if (typeof how === "string") return how;
  return null;
}

/** Progress of a probe job: one entry per requested tool, from the job's items (pure). */
function probeProgress(job: JobRecord, finished: boolean): ToolProgress[] {
  const requested = (job.request as { tools?: unknown }).tools;
  const tools = Array.isArray(requested) ? requested.filter((t): t is string => typeof t === "string") : [];
  const items = new Map(job.items.map((item) => [item.tool, item]));
  return tools.map((tool) => {
    const item = items.get(tool);
    // A finished job whose item never got written did not reach the tool.
    const status = item?.status ?? (finished ? "failed" : "pending");
    const fraction = FINISHED_ITEM.has(status) ? 1 : status === "probing" ? 0.5 : 0;
    return { tool, status, fraction, note: item === undefined ? (finished ? "not reached" : null) : itemNote(item.detail) };
  });
}

/** Progress of a Play2Prompt job: the beam steps done of both searches (demonstrations, descriptions). */
function optimizeProgress(job: JobRecord, finished: boolean): ToolProgress[] {
  const request = job.request as { tool?: unknown; settings?: { depth?: unknown } };
  const tool = typeof request.tool === "string" ? request.tool : "(unknown tool)";
  const depth = typeof request.settings?.depth === "number" ? request.settings.depth : DEFAULT_PLAY_DEPTH;
  const beams = Array.isArray(job.progress.beams) ? job.progress.beams.length : 0;
  const phase = typeof job.progress.phase === "string" ? job.progress.phase : null;
  const fraction = finished ? 1 : Math.min(0.95, beams / (2 * depth));
  const status = finished ? (job.status === "failed" ? "failed" : "done") : job.status === "queued" ? "queued" : "playing";
  return [{ tool, status, fraction, note: phase === null ? null : `${phase}: ${beams} beam steps` }];
}

/** What the jobs pages draw: an overall bar and a bar per tool. */
export function jobProgress(job: JobRecord): JobProgress {
  const finished = job.status === "succeeded" || job.status === "failed";
  const tools = job.kind === "probe" ? probeProgress(job, finished) : optimizeProgress(job, finished);
  const fraction = finished ? 1 : tools.length === 0 ? 0 : tools.reduce((sum, t) => sum + t.fraction, 0) / tools.length;
  return { id: job.id, kind: job.kind, status: job.status, finished, fraction, tools, lastError: job.lastError };
}
