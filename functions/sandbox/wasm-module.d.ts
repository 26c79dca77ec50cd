// wrangler turns `.wasm` imports into compiled modules (CompiledWasm rule); see workerd-wasm.ts.
declare module "@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
