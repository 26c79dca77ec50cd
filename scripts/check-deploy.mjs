// Checks what `npm run deploy` would ship without shipping it: `wrangler deploy --dry-run --env
// production` must build, print no warning, and bind exactly what production needs (no simulated
// world, no loopback model allowance). Used by .ci/run and the deploy-config test.
import { spawnSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = process.argv[2] ?? "dist";
const result = spawnSync(resolve(root, "node_modules/.bin/wrangler"), ["deploy", "--dry-run", "--env", "production", "--outdir", outdir], {
  cwd: root,
  encoding: "utf8",
  env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true", NO_COLOR: "1", FORCE_COLOR: "0" },
});
const output = `${result.stdout}\n${result.stderr}`;
const problems = [];
if (result.status !== 0) problems.push(`wrangler exited with ${result.status}`);
if (/WARNING|\[warn\]/i.test(output)) problems.push("wrangler printed a warning");
const bindings = (name) => new RegExp(`env\\.${name}\\b`).test(output);
for (const needed of ["TENANTS", "DIRECTORY", "PROTOCOLS", "OAUTH_KV", "LOADER", "AI", "MODEL_BASE_URL", "MODEL_NAME"]) {
  if (!bindings(needed)) problems.push(`production lacks the ${needed} binding`);
}
for (const localOnly of [
  "SIMULATED_WORLD",
  "SIMULATED_WORLD_ORIGIN",
  "MODEL_ALLOW_LOOPBACK",
  "ADMIN_TOKEN",
  "CREDENTIALS_KEY",
  "PROGRAM_HOST",
  "PROGRAM_HOST_SECRET",
]) {
  if (bindings(localOnly)) problems.push(`production binds ${localOnly} (local-only, or a secret that belongs in wrangler secret put)`);
}
if (problems.length > 0) {
  console.error(`${output}\nnpm run build (wrangler deploy --dry-run --env production):\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`production build in ${outdir}/: no warnings; bindings as expected`);
