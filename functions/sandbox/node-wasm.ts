/**
 * Node only: compile the QuickJS wasm file of the installed variant package. Loaded lazily by
 * `loadQuickJs()` when no compiled module is passed, so a Worker bundle never runs it.
 */

/** Node's WebAssembly can compile bytes; the Workers types (rightly) leave that out. */
interface CompilingWebAssembly {
  compile(bytes: Uint8Array): Promise<WebAssembly.Module>;
}

export async function compileQuickJsWasm(): Promise<WebAssembly.Module> {
  const { createRequire } = await import("node:module");
  const { readFile } = await import("node:fs/promises");
  const path = createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
  const compiler = WebAssembly as unknown as CompilingWebAssembly;
  return compiler.compile(await readFile(path));
}
