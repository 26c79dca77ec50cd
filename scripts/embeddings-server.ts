import { handleEmbeddingsRequest } from "./embeddings-endpoint";
import { LOCAL_EMBEDDINGS_MODEL, loadLocalEmbedder } from "./local-embeddings";
import { serveOnLoopback, type LoopbackServer } from "./serve-on-loopback";

/** The local sentence encoder as an OpenAI-compatible embeddings endpoint on 127.0.0.1 (`port` 0: a free one). */
export async function startLocalEmbeddingsServer(repositoryRoot: string, port = 0): Promise<LoopbackServer & { model: string }> {
  const embed = await loadLocalEmbedder(repositoryRoot);
  const server = await serveOnLoopback((request) => handleEmbeddingsRequest({ model: LOCAL_EMBEDDINGS_MODEL, embed }, request), port);
  return { ...server, model: LOCAL_EMBEDDINGS_MODEL };
}
