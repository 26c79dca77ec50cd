// `npm start`: the service and the simulated tool world in local workerd (wrangler dev), with
// local Durable Object / KV storage under .wrangler/state, then the demo tenant from kv-seed/.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { redactText } from "../functions/tools/safe-call/log-redaction.mjs";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { seedDemo } from "./seed-demo.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const port = Number(process.env.PORT ?? 8787);
const baseUrl = `http://127.0.0.1:${port}`;
// Documented local-development defaults; deployed, these are secrets (wrangler secret put).
const adminToken = process.env.ADMIN_TOKEN ?? "local-admin-token";
const credentialsKey = process.env.CREDENTIALS_KEY ?? "local-dev-credentials-key-change-me";

if (!existsSync(resolve(root, "../shared/data"))) {
  console.error("../shared/data is missing: the simulated tool world serves the benchmark data from there.");
  process.exit(1);
}

// Model settings from the environment, when given (e.g. MODEL_API_KEY=… npm start).
const modelVars = ["MODEL_BASE_URL", "MODEL_API_KEY", "MODEL_NAME", "EMBEDDING_MODEL"]
  .filter((name) => process.env[name] !== undefined && process.env[name] !== "")
  .flatMap((name) => ["--var", `${name}:${process.env[name]}`]);

const wrangler = spawn(
  resolve(root, "node_modules/.bin/wrangler"),
  [
    "dev", "-c", "wrangler.toml", "-c", "wrangler.world.toml",
    "--ip", "127.0.0.1", "--port", String(port), "--persist-to", ".wrangler/state",
    "--var", `ADMIN_TOKEN:${adminToken}`, "--var", `CREDENTIALS_KEY:${credentialsKey}`,
    "--show-interactive-dev-session=false",
    ...modelVars,
  ],
  { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
);
// wrangler's and workerd's own log lines (request lines, runtime warnings) pass through the
// service's log redaction: no credential reaches the terminal.
for (const [from, to] of [[wrangler.stdout, process.stdout], [wrangler.stderr, process.stderr]]) {
  createInterface({ input: from, crlfDelay: Infinity }).on("line", (line) => to.write(`${redactText(line)}\n`));
}
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => wrangler.kill(signal));
wrangler.on("exit", (code) => process.exit(code ?? 0));

async function waitForHealth(deadline) {
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error("the service did not answer /health within 60 s");
}

try {
  await waitForHealth(Date.now() + 60_000);
  const { key, summary } = await seedDemo(baseUrl, adminToken);
  console.log(`\natc-edge is running at ${baseUrl}\n${summary.join("\n")}`);
  console.log(`demo tenant API key (also in .wrangler/demo-api-key):\n  ${key}`);
  console.log(`try: curl -H "Authorization: Bearer ${key}" ${baseUrl}/v1/tools\n`);
} catch (error) {
  console.error(`demo seeding failed: ${error instanceof Error ? error.message : String(error)}`);
  wrangler.kill("SIGTERM");
  process.exitCode = 1;
}
