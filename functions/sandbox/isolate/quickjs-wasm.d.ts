// Inside a program isolate, the QuickJS wasm is the module "quickjs.wasm" given to LOADER.load().
declare module "*/quickjs.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
