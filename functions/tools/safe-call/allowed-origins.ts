import type { SafeCallOptions } from "./index";

/**
 * The origins that this deployment lets tool calls reach despite the destination guard: only the
 * simulated tool world, and only when both its origin and its binding are configured.
 */
export function allowedOrigins(env: Env): SafeCallOptions["allowedOrigins"] {
  const origin = env.SIMULATED_WORLD_ORIGIN;
  const world = env.SIMULATED_WORLD;
  if (origin === undefined || origin === "" || world === undefined) return {};
  const fetchViaWorld: typeof fetch = (input, init) => world.fetch(new Request(input, init));
  return { [new URL(origin).origin]: { fetch: fetchViaWorld } };
}
