import type { RunOutcome } from "./run-task";

/** A run as the tenant object stores it (JSON in `runs.record`). */
export interface StoredRun extends RunOutcome {
  id: string;
  task: string;
  candidates: string[];
  candidateSource: "request" | "routing";
  createdAt: string;
  timings: { totalMs: number };
}

/** The tool calls a run's final program made (sent or answered from an earlier attempt), in order. */
export function runTools(run: Pick<StoredRun, "attempts">): string[] {
  const last = run.attempts[run.attempts.length - 1];
  return (last?.trace ?? []).filter((t) => t.sent || t.replayed).map((t) => t.tool);
}
