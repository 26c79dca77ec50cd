import { handleDemoModelRequest } from "../functions/demo-model";
import { serveOnLoopback, type LoopbackServer } from "./serve-on-loopback";

/** The demo model on a free loopback port (bundled and started by scripts/demo-model.mjs). */
export function startDemoModelServer(): Promise<LoopbackServer> {
  return serveOnLoopback(handleDemoModelRequest);
}
