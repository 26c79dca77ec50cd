// Built by scripts/build-sandbox.mjs; imported through wrangler's Text and Data module rules.
declare module "*.js.txt" {
  const source: string;
  export default source;
}
declare module "*.wasm.bin" {
  const bytes: ArrayBuffer;
  export default bytes;
}
