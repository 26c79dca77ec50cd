// `npm start`: the service in local workerd (wrangler dev), with local Durable Object / KV storage
// under the state directory, then the demo tenant from kv-seed/. Two more workerd processes are
// started here first and reached through a wrangler dev registry kept in the state directory: the
// simulated tool world (scripts/world-process.mjs) and the program host, where generated programs
// run (scripts/program-host-process.mjs: lower CPU priority, watchdog; a secret made here).
//
//   npm start -- --port 8790 --inspector-port 9230 --state .wrangler/other-state
//   npm start -- --demo-model      # runs, evaluator and Play2Prompt answered by the demo model
//
// Each option may come from the environment instead: PORT, INSPECTOR_PORT, ATC_STATE_DIR.
//
// Whatever ends it (Ctrl-C, SIGINT, SIGTERM or SIGHUP to this script alone, an error, its parent
// dying), it stops everything it started before it exits (scripts/process-lifetime.mjs). A port
// already in use is said in one line before anything starts.
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { redactText } from "../functions/tools/safe-call/log-redaction.mjs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer } from "node:net";
import { parseArgs } from "node:util";
import { portIsFree, processLifetime } from "./process-lifetime.mjs";
import { seedDemo } from "./seed-demo.mjs";
import { startProgramHost } from "./program-host-process.mjs";
import { startSimulatedWorld } from "./world-process.mjs";
import { dropRepeatedBindingsTables } from "./wrangler-output.mjs";
import { startDemoModel } from "./demo-model.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values: options } = parseArgs({
  options: {
    port: { type: "string", default: process.env.PORT ?? "8787" },
    "inspector-port": { type: "string", default: process.env.INSPECTOR_PORT ?? "" },
    state: { type: "string", default: process.env.ATC_STATE_DIR ?? ".wrangler/state" },
    "demo-model": { type: "boolean", default: false },
  },
});
const port = Number(options.port);
// Without one given: 9229 (DevTools' default) when it is free, else any free port, said below.
const inspectorPort = options["inspector-port"] === "" ? await freeInspectorPort() : Number(options["inspector-port"]);
for (const [name, value] of [
  ["--port", port],
  ["--inspector-port", inspectorPort],
]) {
  if (!Number.isInteger(value) || value < 1 || value > 65_535) {
    console.error(`${name} must be a TCP port number (1–65535)`);
    process.exit(2);
  }
}
// Checked before anything starts: wrangler would print workerd's native stack trace for it.
for (const [name, value, given] of [
  ["--port", port, true],
  ["--inspector-port", inspectorPort, options["inspector-port"] !== ""],
]) {
  if (given && !(await portIsFree(value, "127.0.0.1"))) {
    console.error(`port ${value} (${name}) is already in use on 127.0.0.1: stop what listens there, or choose another with ${name}`);
    process.exit(1);
  }
}
const lifetime = processLifetime();
const stateDir = resolve(root, options.state);
const baseUrl = `http://127.0.0.1:${port}`;
// Documented local-development defaults; deployed, these are secrets (wrangler secret put).
const adminToken = process.env.ADMIN_TOKEN ?? "local-admin-token";
const credentialsKey = process.env.CREDENTIALS_KEY ?? "local-dev-credentials-key-change-me";

// Model settings from the environment, when given (e.g. MODEL_API_KEY=… npm start).
// MODEL_ALLOW_LOOPBACK=true lets them name a model server on this machine (Ollama, LM Studio, …).
// --demo-model instead: the scripted stand-in of scripts/demo-model.mjs, only when asked for.
if (options["demo-model"] && process.env.MODEL_BASE_URL) {
  console.error("--demo-model and MODEL_BASE_URL each name a model: use one of them");
  process.exit(2);
}
const demoModel = options["demo-model"] ? await startDemoModel(root, stateDir) : undefined;
if (demoModel !== undefined) lifetime.onStop(() => demoModel.close());
const modelSettings =
  demoModel?.vars ??
  Object.fromEntries(
    ["MODEL_BASE_URL", "MODEL_API_KEY", "MODEL_NAME", "EMBEDDING_MODEL", "MODEL_ALLOW_LOOPBACK"]
      .filter((name) => process.env[name])
      .map((name) => [name, process.env[name]]),
  );
const modelVars = Object.entries(modelSettings).flatMap(([name, value]) => ["--var", `${name}:${value}`]);

// A quiet start, online or offline: no wrangler banner (its update check would offer a wrangler
// that needs Node 22), no metrics, and no fetch of Request.cf's data from workers.cloudflare.com
// (the service reads nothing from request.cf; Miniflare here and wrangler dev both skip it).
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
const wranglerEnv = { ...process.env, WRANGLER_SEND_METRICS: "false", WRANGLER_HIDE_BANNER: "true" };

// Everything is built once, here: the program host and the world bundled by wrangler (the program
// host's [build] also makes the sandbox files the service imports), then the console's and the
// API reference's static assets. wrangler dev builds only the service ([env.local.build] has no
// command: wrangler 4.86 runs a custom build a second time once its file watcher is ready).
const programHostDir = resolve(stateDir, "program-host");
const worldDir = resolve(stateDir, "world");
await Promise.all([bundle("wrangler.program-host.toml", programHostDir), bundle("wrangler.world.toml", worldDir)]);
await finished(lifetime.spawn(process.execPath, ["scripts/build-console.mjs"], { cwd: root, stdio: ["ignore", "inherit", "inherit"] }), "the console build");
// This instance's own dev registry, so two `npm start`s on one machine never bind each other's workers.
const devRegistryPath = resolve(stateDir, "dev-registry");
const world = await startSimulatedWorld({ scriptPath: resolve(worldDir, "worker.js"), devRegistryPath });
lifetime.onStop(() => world.dispose());
const programHost = await startProgramHost({
  scriptPath: resolve(programHostDir, "entry.js"),
  secret: randomBytes(24).toString("hex"),
  devRegistryPath,
  onRestart: (error) => {
    lifetime.ownSignals();
    console.error(
      error === undefined
        ? "program host stopped answering: restarted (its attempts in flight failed with limit programHost)"
        : `program host restart failed: ${error}`,
    );
  },
});
lifetime.onStop(() => programHost.dispose());
lifetime.ownSignals();

const wrangler = lifetime.spawn(
  resolve(root, "node_modules/.bin/wrangler"),
  [
    "dev",
    "-c",
    "wrangler.toml",
    "--env",
    "local",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    stateDir,
    "--var",
    `ADMIN_TOKEN:${adminToken}`,
    "--var",
    `CREDENTIALS_KEY:${credentialsKey}`,
    "--var",
    `PROGRAM_HOST_SECRET:${programHost.secret}`,
    "--show-interactive-dev-session=false",
    ...modelVars,
  ],
  { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...wranglerEnv, WRANGLER_REGISTRY_PATH: devRegistryPath } },
);
// wrangler's and workerd's own log lines (request lines, runtime warnings) pass through the
// service's log redaction: no credential reaches the terminal. A bindings table wrangler prints
// twice in a row is shown once (scripts/wrangler-output.mjs).
const everyLine = (line) => [line];
for (const [from, to, shown] of [
  [wrangler.stdout, process.stdout, dropRepeatedBindingsTables()],
  [wrangler.stderr, process.stderr, everyLine],
]) {
  createInterface({ input: from, crlfDelay: Infinity }).on("line", (line) => {
    for (const kept of shown(line)) to.write(`${redactText(kept)}\n`);
  });
}
// wrangler ending by itself ends the rest too.
wrangler.on("exit", (code) => void lifetime.stop(code ?? 0));

/** Bundle a Worker with wrangler (the same bundling as a deploy) into `outdir`; its errors reach the terminal. */
function bundle(config, outdir) {
  return new Promise((resolveBundle, reject) => {
    const build = lifetime.spawn(resolve(root, "node_modules/.bin/wrangler"), ["deploy", "--dry-run", "--env", "", "-c", config, "--outdir", outdir], {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...wranglerEnv, CI: "true" },
    });
    finished(build, `wrangler's bundle of ${config}`).then(resolveBundle, reject);
  });
}

/** Resolves when `child` exits with 0; rejects, naming `what`, otherwise. */
function finished(child, what) {
  return new Promise((resolveDone, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolveDone() : reject(new Error(`${what} failed (exit ${code})`))));
  });
}

/** 9229 if nothing listens there, else a port the system picks. */
function freeInspectorPort() {
  const tryPort = (wanted) =>
    new Promise((resolvePort) => {
      const server = createServer();
      server.once("error", () => resolvePort(undefined));
      server.listen(wanted, "127.0.0.1", () => {
        const { port: got } = server.address();
        server.close(() => resolvePort(got));
      });
    });
  return tryPort(9229).then((port) => port ?? tryPort(0));
}

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
  const { key, keyFile, summary } = await seedDemo(baseUrl, adminToken, stateDir);
  console.log(
    `\natc-edge is running at ${baseUrl} (DevTools inspector on port ${inspectorPort}; programs run in the program host on ${programHost.address})\n${summary.join("\n")}`,
  );
  if (demoModel !== undefined) console.log(`model: the demo model at ${demoModel.baseUrl}, a scripted stand-in for a language model (answers say so)`);
  console.log(`demo tenant API key (also in ${keyFile}):\n  ${key}`);
  console.log(`try: curl -H "Authorization: Bearer ${key}" ${baseUrl}/v1/tools\n`);
} catch (error) {
  // Not when it is stopping anyway (a signal during the seeding).
  if (!lifetime.stopping) {
    console.error(`demo seeding failed: ${error instanceof Error ? error.message : String(error)}`);
    void lifetime.stop(1);
  }
}
