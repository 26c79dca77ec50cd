// `npm start -- --demo-model`: the demo model (functions/demo-model, TypeScript) bundled once with
// esbuild into the state directory, then served on a free loopback port. Node runs no TypeScript
// by itself, and the service reaches the model over HTTP like any OpenAI-compatible endpoint.
import { build } from "esbuild";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The model settings `npm start` passes to the service for the demo model, and a way to stop it. */
export async function startDemoModel(root, stateDir) {
  const outfile = resolve(stateDir, "demo-model/server.mjs");
  await build({
    entryPoints: [resolve(root, "scripts/demo-model-server.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "error",
  });
  const { startDemoModelServer } = await import(pathToFileURL(outfile).href);
  const server = await startDemoModelServer();
  return {
    baseUrl: server.baseUrl,
    vars: { MODEL_BASE_URL: server.baseUrl, MODEL_API_KEY: "demo", MODEL_NAME: "demo-model", MODEL_ALLOW_LOOPBACK: "true" },
    close: () => server.close(),
  };
}
