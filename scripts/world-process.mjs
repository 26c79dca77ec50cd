// The simulated tool world for `npm start` (scripts/start.mjs): wrangler's bundle of
// wrangler.world.toml, run by Miniflare in a workerd process of its own and registered in the
// instance's wrangler dev registry, where the service's SIMULATED_WORLD binding finds it (as its
// PROGRAM_HOST binding finds the program host). Started before `wrangler dev`, so the service's
// binding is connected from its first request.
import { dirname } from "node:path";
import { Miniflare } from "miniflare";

/** The Worker name the service's `SIMULATED_WORLD` binding names (wrangler.toml, [env.local]). */
export const SIMULATED_WORLD_NAME = "atc-edge-world";

/** Run the world's bundle at `scriptPath` on a free loopback port, registered at `devRegistryPath`; returns its Miniflare (dispose() stops it). */
export async function startSimulatedWorld({ scriptPath, devRegistryPath }) {
  const world = new Miniflare({
    name: SIMULATED_WORLD_NAME,
    host: "127.0.0.1",
    port: 0,
    modules: true,
    scriptPath,
    modulesRoot: dirname(scriptPath),
    // What wrangler.world.toml says.
    compatibilityDate: "2026-04-20",
    unsafeDevRegistryPath: devRegistryPath,
  });
  await world.ready;
  return world;
}
