/**
 * Probing against the simulated tool world, in plain Node: the benchmark worlds' tool definitions
 * (imported as the service imports them, response documentation stripped), a fresh
 * SimulatedWorld serving the same documents, and the two platform dependencies of `probeTools`
 * that touch the world: direct tool calls through the safe-call path (`allowedOrigins` routes the
 * world's origin to the in-process world, everything else is refused) and probing programs run in
 * the QuickJS sandbox (`executeProgram`) with the probe job's limits, their tool calls traced as
 * the tool gateway traces them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { DirectCallResult, ProgramCall, ProgramRun } from "../../functions/probing/chain-of-probing";
import { executeProgram } from "../../functions/sandbox/index";
import { mountAutotools, mountOpenApi, SimulatedWorld } from "../../functions/simulated-world/index";
import { contentHash } from "../../functions/tools/content-hash";
import type { ToolDefinition } from "../../functions/tools/definition";
import { importToolList } from "../../functions/tools/list-import";
import { importOpenApi } from "../../functions/tools/openapi-import";
import { callTool } from "../../functions/tools/safe-call/index";

/** The world's origin, as kv-seed/demo-tenant.json and the dev service configure it. */
export const WORLD_ORIGIN = "http://world.atc.test";

import { PROBE_PROGRAM_LIMITS } from "../../functions/common/run-defaults";

export { PROBE_PROGRAM_LIMITS };

/** functions/services/tool-gateway.ts: what the trace keeps of a result, and of an error. */
const MAX_TRACE_RESULT_CHARS = 4_000;
const MAX_ERROR_CHARS = 600;

export type SeedRule = "none" | "entry-examples";

export interface WorldSpec {
  /** Short name for tables. */
  name: string;
  /** What the world is, for the header. */
  source: string;
  /** Definitions as imported (response documentation still in). */
  load(): Promise<{ tools: ToolDefinition[]; warnings: string[] }>;
  /** A fresh world serving the same document(s). */
  world(seed: SeedRule): SimulatedWorld;
}

export interface ProbeWorld {
  tools: { definition: ToolDefinition; hash: string }[];
  warnings: string[];
  world: SimulatedWorld;
  callTool(name: string, args: Record<string, unknown>): Promise<DirectCallResult>;
  runProgram(program: string, allowedTools: string[]): Promise<ProgramRun>;
  /** Tool calls that reached the world (direct and from programs). */
  stats: { directCalls: number; programRuns: number; programToolCalls: number; clippedResults: number };
}

/** The dev data: $ATC_DATA, as the other benches read it, else ../shared/data beside the project. */
export function sharedDataDir(root = process.cwd()): string {
  return process.env.ATC_DATA ?? join(root, "..", "shared", "data");
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}

/**
 * scripts/seed-demo.mjs `retargetEndpoints`: every endpoint URL pointed at the world's mount,
 * keeping the URL's path. An entry whose url is not a URL (one game endpoint carries its
 * description there) is left as it is, for `skipInvalid` to drop (the world skips it too).
 */
export function retargetEndpoints(file: unknown, origin: string): unknown {
  const f = file as { endpoints?: { url?: string }[] };
  const endpoints = (f.endpoints ?? []).map((endpoint) => {
    let url: URL;
    try {
      url = new URL(
        String(endpoint.url ?? "")
          .replaceAll("{", "%7B")
          .replaceAll("}", "%7D"),
      );
    } catch {
      return endpoint;
    }
    return { ...endpoint, url: `${origin}${decodeURIComponent(url.pathname)}` };
  });
  return { ...(file as object), servers: [{ url: origin }], endpoints };
}

export function restbenchTmdb(dataDir: string): WorldSpec {
  const path = join(dataDir, "restbench-tmdb", "openapi.json");
  return {
    name: "RestBench TMDB",
    source: "restbench-tmdb/openapi.json at /tmdb",
    load: async () => importOpenApi(readJson(path) as object, { serverUrl: `${WORLD_ORIGIN}/tmdb` }),
    world: (seed) => new SimulatedWorld([mountOpenApi("/tmdb", readJson(path), { seed })]),
  };
}

export function autotools(dataDir: string, domain: "food" | "weather" | "tmdb" | "game"): WorldSpec {
  const path = join(dataDir, "autotools", "tools", `${domain}.tools.json`);
  const mount = `/autotools/${domain}`;
  return {
    name: `AutoTools ${domain}`,
    source: `autotools/tools/${domain}.tools.json at ${mount}`,
    load: async () => importToolList(retargetEndpoints(readJson(path), `${WORLD_ORIGIN}${mount}`), { skipInvalid: true }),
    world: (seed) => new SimulatedWorld([mountAutotools(mount, readJson(path), { seed })]),
  };
}

/** Probing is for undocumented tools: the definition without what a response looks like. */
export function withoutResponseDocs(def: ToolDefinition): ToolDefinition {
  const { responseSchema: _schema, responseExample: _example, ...rest } = def;
  return rest;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… [cut: ${text.length - max} more characters]` : text;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Imports the world's tools, strips their response documentation and wires them to a fresh world. */
export async function openProbeWorld(spec: WorldSpec, seed: SeedRule, options: { clipTraceResults?: boolean } = {}): Promise<ProbeWorld> {
  const clipTrace = options.clipTraceResults ?? true;
  const imported = await spec.load();
  const definitions = imported.tools.map(withoutResponseDocs);
  const tools = await Promise.all(definitions.map(async (definition) => ({ definition, hash: await contentHash(definition) })));
  const byName = new Map(definitions.map((d) => [d.name, d]));
  const world = spec.world(seed);
  const viaWorld: typeof fetch = (input, init) => world.handle(new Request(input, init));
  const refuse: typeof fetch = () => Promise.reject(new Error("only the simulated world is reachable from this benchmark"));
  const stats = { directCalls: 0, programRuns: 0, programToolCalls: 0, clippedResults: 0 };

  const safeCall = async (name: string, args: Record<string, unknown>) => {
    const def = byName.get(name);
    if (def === undefined) return undefined;
    return callTool(def, args, {
      fetch: refuse,
      timeoutMs: PROBE_PROGRAM_LIMITS.toolTimeoutMs,
      maxResponseBytes: PROBE_PROGRAM_LIMITS.maxToolResponseBytes,
      allowedOrigins: { [WORLD_ORIGIN]: { fetch: viaWorld } },
    });
  };

  return {
    tools,
    warnings: imported.warnings,
    world,
    stats,
    // functions/jobs/probe-job.ts deps.callTool.
    async callTool(name, args) {
      stats.directCalls++;
      const result = await safeCall(name, args);
      if (result === undefined) return { ok: false, body: null, error: `tool ${name} does not exist` };
      return { ok: result.ok, status: result.status, body: result.body, error: result.error?.message };
    },
    // functions/jobs/probe-job.ts deps.runProgram, with the isolate harness and tool gateway inlined.
    async runProgram(program, allowedTools) {
      stats.programRuns++;
      const trace: ProgramCall[] = [];
      const result = await executeProgram(program, {
        tools: allowedTools,
        memoryLimitBytes: PROBE_PROGRAM_LIMITS.memoryLimitBytes,
        stretchBudget: PROBE_PROGRAM_LIMITS.stretchBudget,
        totalBudget: PROBE_PROGRAM_LIMITS.totalBudget,
        timeoutMs: PROBE_PROGRAM_LIMITS.deadlineMs,
        maxToolCalls: PROBE_PROGRAM_LIMITS.maxToolCalls,
        callTool: async (name, args) => {
          stats.programToolCalls++;
          if (!allowedTools.includes(name)) {
            const error = `tool ${name} is not in this run's candidate set`;
            trace.push({ tool: name, arguments: args, ok: false, error });
            throw new Error(error);
          }
          if (typeof args !== "object" || args === null || Array.isArray(args)) {
            const error = `${name} takes one object of named arguments, e.g. tools.${name}({ ... })`;
            trace.push({ tool: name, arguments: args, ok: false, error });
            throw new Error(error);
          }
          let outcome: Awaited<ReturnType<typeof safeCall>>;
          try {
            outcome = await safeCall(name, args as Record<string, unknown>);
          } catch (e) {
            const error = `${name} failed: ${errorMessage(e)}`;
            trace.push({ tool: name, arguments: args, ok: false, error });
            throw new Error(error);
          }
          if (outcome === undefined) {
            const error = `tool ${name} does not exist (it may have been deleted)`;
            trace.push({ tool: name, arguments: args, ok: false, error });
            throw new Error(error);
          }
          const text = JSON.stringify(outcome.body) ?? "null";
          // The gateway keeps a GET result in the trace only up to 4 000 characters (clipTraceResults: false keeps it whole).
          const clipped = clipTrace && outcome.ok && outcome.request.method === "GET" && text.length > MAX_TRACE_RESULT_CHARS;
          const kept = outcome.ok && outcome.request.method !== "GET" ? outcome.body : clipped ? clip(text, MAX_TRACE_RESULT_CHARS) : outcome.body;
          if (outcome.ok) {
            trace.push({ tool: name, arguments: args, ok: true, result: kept });
            if (clipped) stats.clippedResults++;
            return outcome.body;
          }
          const upstream = outcome.status === undefined ? "" : ` (HTTP ${outcome.status}: ${clip(JSON.stringify(outcome.body) ?? "", 300)})`;
          const error = clip(`${name} failed: ${outcome.error?.message ?? "unknown error"}${upstream}`, MAX_ERROR_CHARS);
          trace.push({ tool: name, arguments: args, ok: false, result: kept, error });
          throw new Error(error);
        },
      });
      return result.ok ? { ok: true, answer: result.answer, trace } : { ok: false, error: { message: result.error.message }, trace };
    },
  };
}
