import type { TestService } from "../../test/helpers/service";

/**
 * What a background job does to the requests around it (issue 42): every `everyMs`, a route of
 * the tenant running the job, a route of another tenant and a poll of the job's progress, sent
 * together; each kind's failures, p50, p99 and worst. The progress polls also collect what the
 * job says of its alarm slices (pieces, ms, longest piece) per phase.
 *
 * The same requests at the same cadence before the job (`probeBeforeJob`) say what they take on
 * this machine at this load without it: the job's added time is read against them (`addedLine`),
 * not against a figure from another run.
 */

export interface ProbeFigures {
  sent: number;
  failed: number;
  p50: number;
  p99: number;
  worst: number;
}

export interface SliceFigures {
  slices: number;
  longestSliceMs: number;
  longestPieceMs: number;
}

export interface JobProbes {
  /** The job's phase as the last progress poll saw it (the heap sampler attributes its samples by it). */
  phase(): string;
  /** When each phase was first seen (performance.now), in order (the CPU per phase is attributed by them). */
  marks(): { atMs: number; phase: string }[];
  stop(): Promise<{ importing: ProbeFigures; other: ProbeFigures; progress: ProbeFigures; slices: Map<string, SliceFigures> }>;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

function figures(samples: { ms: number; ok: boolean }[]): ProbeFigures {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  return {
    sent: samples.length,
    failed: samples.filter((s) => !s.ok).length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    worst: sorted.at(-1) ?? 0,
  };
}

/** What the probes send: the two tenants' keys, the route task of the importing one, and the progress path polled. */
interface ProbeTargets {
  importing: string;
  other: string;
  task: string;
  progressPath: string;
  /** Statuses that count as answered (a poll of no job yet answers 404, as fast as a job's answer). */
  answered: readonly number[];
}

export function probeDuringJob(service: TestService, importing: string, other: string, jobId: string, task: string, everyMs = 2_000): JobProbes {
  return probeRequests(service, { importing, other, task, progressPath: `/v1/jobs/${jobId}`, answered: [200] }, everyMs);
}

/**
 * The same requests, at the same cadence, for `seconds` before the job: the progress poll asks
 * for a job id no job has (404 through the same path: the Worker, the tenant object, its jobs'
 * table), as there is no job yet.
 */
export async function probeBeforeJob(
  service: TestService,
  importing: string,
  other: string,
  task: string,
  seconds: number,
  everyMs = 2_000,
): Promise<{ importing: ProbeFigures; other: ProbeFigures; progress: ProbeFigures }> {
  const probes = probeRequests(service, { importing, other, task, progressPath: "/v1/jobs/no-job-yet", answered: [200, 404] }, everyMs);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
  const { importing: routes, other: others, progress } = await probes.stop();
  return { importing: routes, other: others, progress };
}

function probeRequests(service: TestService, targets: ProbeTargets, everyMs: number): JobProbes {
  const { importing, other, task } = targets;
  const samples = { importing: [] as { ms: number; ok: boolean }[], other: [] as { ms: number; ok: boolean }[], progress: [] as { ms: number; ok: boolean }[] };
  const slices = new Map<string, SliceFigures & { seen: Set<string> }>();
  const timed = async <T>(into: { ms: number; ok: boolean }[], send: () => Promise<{ status: number; body: T }>): Promise<T | undefined> => {
    const started = performance.now();
    try {
      const answer = await send();
      into.push({ ms: performance.now() - started, ok: targets.answered.includes(answer.status) });
      return answer.body;
    } catch {
      into.push({ ms: performance.now() - started, ok: false });
      return undefined;
    }
  };
  let running = true;
  let phase = "upload";
  const marks: { atMs: number; phase: string }[] = [];
  const loop = (async () => {
    while (running) {
      const next = performance.now() + everyMs;
      const [, , job] = await Promise.all([
        timed(samples.importing, () => service.json("POST", "/v1/route", { key: importing, body: { task, k: 8 } })),
        timed(samples.other, () => service.json("POST", "/v1/route", { key: other, body: { task: "list movie genres", k: 8 } })),
        timed(samples.progress, () =>
          service.json<{ progress?: { phase?: string; slice?: { pieces: number; ms: number; longestPieceMs: number } } }>("GET", targets.progressPath, {
            key: importing,
          }),
        ),
      ]);
      noteSlice(slices, job?.progress);
      if (job?.progress?.phase !== undefined && job.progress.phase !== phase) {
        phase = job.progress.phase;
        marks.push({ atMs: performance.now(), phase });
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
    }
  })();
  return {
    phase: () => phase,
    marks: () => [...marks],
    async stop() {
      running = false;
      await loop;
      return { importing: figures(samples.importing), other: figures(samples.other), progress: figures(samples.progress), slices };
    },
  };
}

function noteSlice(
  slices: Map<string, SliceFigures & { seen: Set<string> }>,
  progress: { phase?: string; slice?: { pieces: number; ms: number; longestPieceMs: number } } | undefined,
): void {
  if (progress?.slice === undefined || progress.phase === undefined) return;
  const entry = slices.get(progress.phase) ?? { slices: 0, longestSliceMs: 0, longestPieceMs: 0, seen: new Set<string>() };
  const key = JSON.stringify(progress.slice);
  if (!entry.seen.has(key)) {
    entry.seen.add(key);
    entry.slices += 1;
  }
  entry.longestSliceMs = Math.max(entry.longestSliceMs, progress.slice.ms);
  entry.longestPieceMs = Math.max(entry.longestPieceMs, progress.slice.longestPieceMs);
  slices.set(progress.phase, entry);
}

export function probeLine(label: string, f: ProbeFigures): string {
  return `  ${label.padEnd(28)} ${f.sent} sent, ${f.failed} failed; p50 ${f.p50.toFixed(0)} ms, p99 ${f.p99.toFixed(0)} ms, worst ${f.worst.toFixed(0)} ms`;
}

/** The job's added time: each figure during the job less the same figure before it (same requests, same cadence, same machine). */
export function addedLine(label: string, before: ProbeFigures, during: ProbeFigures): string {
  const added = (a: number, b: number) => `${a - b >= 0 ? "+" : ""}${(a - b).toFixed(0)}`;
  return `  ${label.padEnd(28)} before ${before.sent} sent, ${before.failed} failed; p50 ${before.p50.toFixed(0)} ms, p99 ${before.p99.toFixed(0)} ms, worst ${before.worst.toFixed(0)} ms; the job adds p50 ${added(during.p50, before.p50)} ms, p99 ${added(during.p99, before.p99)} ms, worst ${added(during.worst, before.worst)} ms`;
}
