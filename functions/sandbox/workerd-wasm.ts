/**
 * The metered QuickJS wasm (built by scripts/build-sandbox.mjs) as a compiled
 * `WebAssembly.Module`, for Workers: pass it to `loadQuickJs`.
 *
 * wrangler's default module rule (`**\/*.wasm` → CompiledWasm) matches on the import text, so
 * wrangler uploads the file as a separate module and the Worker receives it compiled. Node
 * cannot import this file; Node code calls `loadQuickJs()` without a module.
 */
import quickjsWasm from "./generated/quickjs.wasm";

export default quickjsWasm;
