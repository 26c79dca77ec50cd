/**
 * Per-isolate counters about the sandbox machinery itself (not about programs): tests read them
 * to prove handles are released; an operator can log them.
 */
export const sandboxDiagnostics = {
  runs: 0,
  /** WebAssembly instances created, and reused (same isolation key, see instance-pool.ts). */
  instancesCreated: 0,
  instancesReused: 0,
  /** `runtime.dispose()` failed: QuickJS found objects still alive (it leaks some after out-of-memory). */
  disposeFailures: 0,
  /** Instances dropped without disposal after a host-level exception inside them. */
  abandonedInstances: 0,
  /** Last message the WebAssembly module printed (an `Aborted(...)` assertion, for instance). */
  lastModuleMessage: undefined as string | undefined,
};
