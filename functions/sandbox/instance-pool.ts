import { sandboxDiagnostics } from "./diagnostics";
import type { QuickJsEngine, SandboxInstance } from "./engine";

/** Idle instances kept per isolate, over all keys (least recently used go first). */
const MAX_IDLE = 4;
/** An instance whose memory grew past this is not kept: the isolate should not hold big memories. */
const MAX_KEPT_MEMORY_BYTES = 24 * 1024 * 1024;

interface Idle {
  key: string;
  heapBytes: number;
  instance: SandboxInstance;
}

const idle: Idle[] = [];

/**
 * A WebAssembly instance for one program. With an `isolationKey`, an instance a previous program
 * of the same key left in good health may be reused (the program still gets a fresh QuickJS
 * runtime and context); without one, the instance is always new. Keys exist because reuse keeps
 * the previous program's freed heap in the same linear memory: only a QuickJS memory-safety bug
 * could read it, but that bug must not cross tenants.
 */
export async function acquireInstance(engine: QuickJsEngine, heapBytes: number, isolationKey: string | undefined): Promise<SandboxInstance> {
  if (isolationKey !== undefined) {
    const index = idle.findIndex((entry) => entry.key === isolationKey && entry.heapBytes === heapBytes);
    const found = index >= 0 ? idle.splice(index, 1)[0] : undefined;
    if (found) {
      sandboxDiagnostics.instancesReused++;
      return found.instance;
    }
  }
  sandboxDiagnostics.instancesCreated++;
  return engine.instantiate(heapBytes);
}

/** Give an instance back after its runtime was disposed cleanly; anything else just drops it. */
export function releaseInstance(instance: SandboxInstance, heapBytes: number, isolationKey: string | undefined, healthy: boolean): void {
  if (isolationKey === undefined || !healthy) return;
  if (instance.memory.buffer.byteLength > MAX_KEPT_MEMORY_BYTES) return;
  idle.push({ key: isolationKey, heapBytes, instance });
  if (idle.length > MAX_IDLE) idle.shift();
}
