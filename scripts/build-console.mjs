// Builds the console's two browser scripts (graph drawing with d3-force, live progress) into
// functions/console/generated/ as text modules that the Worker serves under /console/assets/.
// Run by wrangler's [build] command after the sandbox build, so dev, deploy and tests get them.
import { build } from "esbuild";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = resolve(root, "functions/console/generated");
mkdirSync(out, { recursive: true });

for (const name of ["graph", "live"]) {
  await build({
    entryPoints: [resolve(root, `functions/console/client/${name}.js`)],
    outfile: resolve(out, `${name}.js.txt`),
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    minify: true,
    legalComments: "none",
    logLevel: "warning",
  });
}
