// Builds what a Worker Loader isolate runs: the sandbox harness (QuickJS runner + bridge to the
// tools capability) as one ES module, and the QuickJS wasm, metered (scripts/meter-quickjs.mjs):
// as bytes (quickjs.wasm.bin) and as a wasm module file (quickjs.wasm, for Node and for Workers
// that import it directly). The service imports both as
// data (Text / Data module rules in wrangler.toml) and hands them to LOADER.load() per attempt.
// Run by wrangler's [build] command, so `wrangler dev`, `deploy` and the test build all get it.
import { build } from "esbuild";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { meterQuickJs } from "./meter-quickjs.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = resolve(root, "functions/sandbox/generated");
mkdirSync(out, { recursive: true });

await build({
  entryPoints: [resolve(root, "functions/sandbox/isolate/harness-entry.ts")],
  outfile: resolve(out, "harness.js.txt"),
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  conditions: ["workerd", "worker", "browser", "import"],
  mainFields: ["module", "main"],
  external: ["cloudflare:workers", "./quickjs.wasm", "node:*"],
  minify: true,
  legalComments: "none",
  logLevel: "warning",
});

const require = createRequire(import.meta.url);
meterQuickJs(require.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"), [resolve(out, "quickjs.wasm.bin"), resolve(out, "quickjs.wasm")]);
