import type { StoredRun } from "../chain/stored-run";

/**
 * A run that stopped before it ended (the model endpoint failed, …), stored with every attempt it
 * made; `cause` is what failed (a ModelCallError keeps its status and `Retry-After` for the answer).
 * In a module of its own, with no platform import, so the HTTP error boundary can recognise it
 * without loading the program executors (and the unit tests of the app can load it in Node).
 */
export class RunStopped extends Error {
  override readonly name = "RunStopped";
  constructor(
    readonly run: StoredRun,
    override readonly cause: unknown,
  ) {
    super(run.error?.message ?? `Run ${run.id} stopped.`);
  }
}
