/**
 * The QuickJS wasm as a compiled `WebAssembly.Module`, for Workers: pass it to `loadQuickJs`.
 *
 * wrangler's default module rule (`**\/*.wasm` → CompiledWasm) matches on the import text, so
 * the specifier names the file itself rather than the package's `./wasm` export (which does not
 * end in `.wasm`); wrangler then resolves it, uploads it as a separate module and imports it.
 * Node cannot import this file; Node code calls `loadQuickJs()` without a module.
 */
import quickjsWasm from "@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm";

export default quickjsWasm;
