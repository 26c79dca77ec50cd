import type { TestService } from "../../test/helpers/service";

/**
 * What a background job does to the requests around it (issue 42): every `everyMs`, a route of
 * the tenant running the job, a route of another tenant and a poll of the job's progress, sent
 * together; each kind's failures, p50, p99 and worst. The progress polls also collect what the
 * job says of its alarm slices (pieces, ms, longest piece) per phase.
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

export function probeDuringJob(service: TestService, importing: string, other: string, jobId: string, task: string, everyMs = 2_000): JobProbes {
  const samples = { importing: [] as { ms: number; ok: boolean }[], other: [] as { ms: number; ok: boolean }[], progress: [] as { ms: number; ok: boolean }[] };
  const slices = new Map<string, SliceFigures & { seen: Set<string> }>();
  const timed = async <T>(into: { ms: number; ok: boolean }[], send: () => Promise<{ status: number; body: T }>): Promise<T | undefined> => {
    const started = performance.now();
    try {
      const answer = await send();
      into.push({ ms: performance.now() - started, ok: answer.status === 200 });
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
          service.json<{ progress?: { phase?: string; slice?: { pieces: number; ms: number; longestPieceMs: number } } }>("GET", `/v1/jobs/${jobId}`, {
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
