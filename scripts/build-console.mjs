// Builds the static files of the console and of the API reference into
// functions/http/console/generated/static/, laid out as the URLs that serve them: wrangler.toml's
// [assets] serves that folder as Workers static assets (`npm start`, a deploy, and the tests'
// Miniflare all serve the same files), so none of them is a module inside the Worker.
//   console/assets/graph.js, live.js   the console's browser scripts (d3-force graph, live progress)
//   console/assets/console.css         the console's stylesheet (written in styles.ts)
//   docs/scalar.js                     the API reference's prebuilt bundle (Scalar)
//   docs/api-reference.js              starts it with the configuration its page carries
// Run by wrangler's [build] command after the sandbox build, and by `npm start` before wrangler dev.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const consoleDir = resolve(root, "functions/http/console");
const out = resolve(consoleDir, "generated/static");
rmSync(out, { recursive: true, force: true });
for (const folder of ["console/assets", "docs"]) mkdirSync(resolve(out, folder), { recursive: true });

const browserScript = { bundle: true, format: "iife", platform: "browser", target: "es2020", minify: true, legalComments: "none", logLevel: "warning" };
for (const [source, target] of [
  ["graph.js", "console/assets/graph.js"],
  ["live.js", "console/assets/live.js"],
  ["api-reference.js", "docs/api-reference.js"],
]) {
  await build({ ...browserScript, entryPoints: [resolve(consoleDir, "client", source)], outfile: resolve(out, target) });
}

writeFileSync(resolve(out, "console/assets/console.css"), await consoleStylesheet());

const require = createRequire(import.meta.url);
copyFileSync(require.resolve("@scalar/api-reference/browser/standalone.js"), resolve(out, "docs/scalar.js"));

/** The stylesheet as styles.ts exports it: compiled by esbuild in memory and imported as a module. */
async function consoleStylesheet() {
  const compiled = await build({
    entryPoints: [resolve(consoleDir, "styles.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    write: false,
    logLevel: "warning",
  });
  const source = compiled.outputFiles[0]?.text ?? "";
  const { CONSOLE_CSS } = await import(`data:text/javascript;base64,${Buffer.from(source).toString("base64")}`);
  if (typeof CONSOLE_CSS !== "string" || CONSOLE_CSS.trim() === "") throw new Error("styles.ts exports no CONSOLE_CSS");
  return CONSOLE_CSS;
}
