// `npm run embeddings-server [-- --port=8790]`: a sentence encoder that runs offline
// (scripts/local-embeddings.ts, installed into .embeddings-model/ on first use) served as an
// OpenAI-compatible POST /v1/embeddings on 127.0.0.1, to try the embeddings path of routing with
// no model service (docs/configuration.md). Bundled with esbuild like the demo model: Node runs no
// TypeScript by itself.
import { build } from "esbuild";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const port = Number(process.argv.find((a) => a.startsWith("--port="))?.slice("--port=".length) ?? 8790);
const outfile = resolve(root, ".embeddings-model/server.mjs");
await build({
  entryPoints: [resolve(root, "scripts/embeddings-server.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  outfile,
  logLevel: "error",
});
const { startLocalEmbeddingsServer } = await import(pathToFileURL(outfile).href);
const server = await startLocalEmbeddingsServer(root, port);
console.log(`embeddings: ${server.model} at ${server.baseUrl}/embeddings (Ctrl-C stops)`);
console.log(`try: MODEL_ALLOW_LOOPBACK=true MODEL_BASE_URL=${server.baseUrl} MODEL_API_KEY=local MODEL_NAME=none EMBEDDING_MODEL=${server.model} npm start`);
const stop = () => void server.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
