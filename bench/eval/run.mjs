// Bundles a TypeScript benchmark with esbuild into .bench-build/ and runs it with the rest of the
// command line. Run from the repository root:
//   node bench/eval/run.mjs [run-eval|sandbox-overhead] [flags…]     (default: run-eval)
// npm: `npm run eval -- --scripted`, `npm run bench:sandbox -- --runs 100`.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const entries = {
  "run-eval": "bench/eval/run-eval.ts",
  "sandbox-overhead": "bench/sandbox-overhead.ts",
};

let args = process.argv.slice(2);
let name = "run-eval";
if (args[0] !== undefined && Object.hasOwn(entries, args[0])) {
  name = args[0];
  args = args.slice(1);
}
if (args[0] === "--") args = args.slice(1);

const outdir = resolve(root, ".bench-build");
mkdirSync(outdir, { recursive: true });
const outfile = resolve(outdir, `${name}.mjs`);
const esbuild = resolve(root, "node_modules/.bin/esbuild");
const built = spawnSync(
  esbuild,
  [entries[name], "--bundle", "--platform=node", "--format=esm", "--packages=external", "--target=node20", `--outfile=${outfile}`, "--log-level=warning"],
  { cwd: root, stdio: "inherit" },
);
if (built.status !== 0) process.exit(built.status ?? 1);
const ran = spawnSync(process.execPath, [outfile, ...args], { cwd: root, stdio: "inherit" });
process.exit(ran.status ?? 1);
