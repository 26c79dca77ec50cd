import { serveOnLoopback, type LoopbackServer } from "../../scripts/serve-on-loopback";
import type { ScriptedModel } from "./scripted-model";

/**
 * The scripted model as a real OpenAI-compatible HTTP server on 127.0.0.1 (the same loopback
 * server `npm start -- --demo-model` puts the demo model behind).
 */
export type LocalModelServer = LoopbackServer;

export async function serveLocally(model: ScriptedModel): Promise<LocalModelServer> {
  return serveOnLoopback((request) => model.handle(request));
}
