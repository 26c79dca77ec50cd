/**
 * Node only: compile the metered QuickJS wasm that scripts/build-sandbox.mjs writes (the test
 * setup and wrangler's build run it). Loaded lazily by `loadQuickJs()` when no compiled module
 * is passed, so a Worker bundle never runs it.
 */

/** Node's WebAssembly can compile bytes; the Workers types (rightly) leave that out. */
interface CompilingWebAssembly {
  compile(bytes: Uint8Array): Promise<WebAssembly.Module>;
}

export async function compileQuickJsWasm(): Promise<WebAssembly.Module> {
  const { readFile } = await import("node:fs/promises");
  const { existsSync } = await import("node:fs");
  const { fileURLToPath } = await import("node:url");
  // Beside this file; from the repository root when a bundler moved this code (bench/).
  const candidates = [fileURLToPath(new URL("./generated/quickjs.wasm", import.meta.url)), `${process.cwd()}/functions/sandbox/generated/quickjs.wasm`];
  const path = candidates.find((candidate) => existsSync(candidate));
  if (path === undefined) throw new Error("the metered QuickJS wasm is missing: run `node scripts/build-sandbox.mjs` (the test setup and wrangler's build do)");
  const bytes = await readFile(path);
  const compiler = WebAssembly as unknown as CompilingWebAssembly;
  return compiler.compile(bytes);
}
