// Inside a program isolate, the QuickJS wasm is the module named "quickjs.wasm" in the isolate's code.
declare module "*/quickjs.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
