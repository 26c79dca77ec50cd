// Bundle one benchmark with esbuild (node_modules stay external) and run it with node:
//
//   node bench/run.mjs <name> [args…]     e.g. node bench/run.mjs route-latency --skip-build
//
// Same as: node_modules/.bin/esbuild bench/<name>.ts --bundle --platform=node --format=esm \
//            --packages=external --outfile=.bench-build/<name>.mjs && node .bench-build/<name>.mjs
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const [name, ...args] = process.argv.slice(2);
const available = readdirSync(join(root, "bench"))
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.slice(0, -3));

if (name === undefined || !available.includes(name)) {
  console.error(`usage: node bench/run.mjs <name> [args…]\nbenchmarks: ${available.join(", ")}`);
  process.exit(name === undefined ? 0 : 2);
}

const outfile = join(root, ".bench-build", `${name}.mjs`);
await build({
  entryPoints: [join(root, "bench", `${name}.ts`)],
  bundle: true,
  platform: "node",
  format: "esm",
  packages: "external",
  outfile,
  logLevel: "warning",
});
if (!existsSync(outfile)) throw new Error(`esbuild wrote no ${outfile}`);
// The service helpers find .test-build/ and ../shared relative to the repository root.
// --expose-gc: memory figures are read after a forced collection.
// Node 20 has WebSocket (route-profile's inspector client) only behind a flag.
const websocket = typeof WebSocket === "undefined" ? ["--experimental-websocket"] : [];
const result = spawnSync(process.execPath, ["--expose-gc", ...websocket, outfile, ...args], { cwd: root, stdio: "inherit" });
process.exit(result.status ?? 1);
