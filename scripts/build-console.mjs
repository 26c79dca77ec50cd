// Builds the console's two browser scripts (graph drawing with d3-force, live progress) into
// functions/http/console/generated/ as text modules that the Worker serves under /console/assets/,
// and copies the API reference's prebuilt bundle (Scalar) beside them for /docs.
// Run by wrangler's [build] command after the sandbox build, so dev, deploy and tests get them.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = resolve(root, "functions/http/console/generated");
mkdirSync(out, { recursive: true });

for (const name of ["graph", "live"]) {
  await build({
    entryPoints: [resolve(root, `functions/http/console/client/${name}.js`)],
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

// The API reference's browser bundle (Scalar), served by the Worker at /docs/scalar.js.
const require = createRequire(import.meta.url);
copyFileSync(require.resolve("@scalar/api-reference/browser/standalone.js"), resolve(out, "scalar.js.txt"));
