import { z } from "zod";
import type { ToolDefinition } from "../tools/definition";

/**
 * Probing and tool play call tools the tenant did not ask to call, many times, with made-up
 * arguments. For a GET that is harmless; a POST, PUT, PATCH or DELETE against a real upstream may
 * create, change or delete the tenant's data. So an unsafe method is called for real only when the
 * tenant allows it for that tool or its source, or is called against a simulated copy of the
 * tool's own imported definition; by default it is skipped, and the job says so.
 */

/** Methods that, by HTTP's definition, do not change anything (RFC 9110 §9.2.1). */
export const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

const Scope = z
  .object({
    tools: z.array(z.string().min(1).max(200)).max(1_000).default([]).describe("Tool names"),
    sources: z.array(z.string().min(1).max(200)).max(200).default([]).describe("Import sources (every tool imported under them)"),
  })
  .strict();

export const SideEffectSettings = z
  .object({
    realUnsafe: Scope.default({ tools: [], sources: [] }).describe("Non-GET operations that probing and tool play may call for real"),
    simulatedUnsafe: Scope.extend({ all: z.boolean().default(false).describe("Every other non-GET operation") })
      .strict()
      .default({ tools: [], sources: [], all: false })
      .describe("Non-GET operations that probing and tool play call against a simulated copy of their imported definition"),
  })
  .strict();
export type SideEffectSettings = z.infer<typeof SideEffectSettings>;

export const DEFAULT_SIDE_EFFECT_SETTINGS: SideEffectSettings = SideEffectSettings.parse({});

export type SideEffectMode = { mode: "real" } | { mode: "simulated" } | { mode: "skipped"; reason: string };

/**
 * How probing and tool play may call a tool. Tools served by the deployment's own simulated world
 * (local development) are simulations already, so they are called as they are.
 */
export function sideEffectMode(
  tool: { definition: ToolDefinition; source: string },
  settings: SideEffectSettings,
  simulatedWorldOrigin?: string,
): SideEffectMode {
  const { definition, source } = tool;
  if (SAFE_METHODS.has(definition.method.toUpperCase())) return { mode: "real" };
  // MCP tools have no HTTP method of their own (every call is a POST of tools/call); they are
  // probed as before. Their read-only annotations are not kept yet, so they cannot be told apart.
  if (definition.mcp !== undefined) return { mode: "real" };
  if (simulatedWorldOrigin !== undefined && simulatedWorldOrigin !== "" && sameOrigin(definition.serverUrl, simulatedWorldOrigin)) return { mode: "real" };
  const covers = (scope: { tools: string[]; sources: string[] }) => scope.tools.includes(definition.name) || scope.sources.includes(source);
  if (covers(settings.realUnsafe)) return { mode: "real" };
  if (settings.simulatedUnsafe.all || covers(settings.simulatedUnsafe)) return { mode: "simulated" };
  return {
    mode: "skipped",
    reason: `${definition.method} may change data upstream; allow it for this tool or source (realUnsafe) or use a simulated copy (simulatedUnsafe) in PUT /v1/settings/side-effects`,
  };
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}
