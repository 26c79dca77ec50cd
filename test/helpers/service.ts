import { existsSync, readFileSync } from "node:fs";
import type { Readable } from "node:stream";
import { Miniflare, type Request as MfRequest, Response as MfResponse, type WorkerOptions } from "miniflare";
import { startProgramHost, type ProgramHostProcess } from "./program-host";

/**
 * The service in workerd, as integration tests see it: the bundled Worker with its Durable
 * Objects (SQLite), KV, Worker Loader, the simulated tool world as a second Worker, and the
 * program host in a workerd process of its own, as `npm start` runs them.
 * Outbound network of the service goes to `outbound` (a Node function) instead of the internet:
 * that is where the scripted model answers and where tests observe tool traffic.
 */

export const ADMIN_TOKEN = "test-admin-token";
export const CREDENTIALS_KEY = "test-credentials-key-0123456789";
export const WORLD_ORIGIN = "http://world.atc.test";
export const MODEL_BASE_URL = "http://model.atc.test/v1";

export type OutboundHandler = (request: Request) => Promise<Response> | Response;

export interface ServiceOptions {
  outbound?: OutboundHandler;
  bindings?: Record<string, string>;
  /** Keep Durable Object storage on disk here (to inspect what requests created). */
  durableObjectsPersist?: string;
  /** Also listen for real HTTP on 127.0.0.1:port (browser tests); otherwise only dispatchFetch. */
  port?: number;
  /** `false`: programs run in the service's own process, as deployed (no program host). */
  programHost?: boolean;
  /** Faster watchdog timing, for tests of the watchdog. */
  watchdog?: Parameters<typeof startProgramHost>[0];
  /** Open workerd's V8 inspector on this port (CPU profiles in benchmarks). */
  inspectorPort?: number;
  /** More Workers in the same workerd process, reached by their `routes` (benchmarks' yardsticks). */
  extraWorkers?: WorkerOptions[];
  /**
   * Instead of `outbound`: workerd's own network, which looks names up (as `npm start` does) but
   * refuses every connection, so nothing but a name lookup leaves workerd (tests of DNS failures).
   * The program host then answers the service's name lookups with this machine's resolver.
   */
  lookupOnlyNetwork?: boolean;
  /** Receives what the workerd process writes (its log), instead of the test's output. */
  onRuntimeOutput?: (text: string) => void;
  /** workerd's `--verbose`: its warnings about the Worker's code (such as cross-request promises) reach `onRuntimeOutput` too. */
  runtimeWarnings?: boolean;
}

export interface TestService {
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** JSON helper: sends/parses JSON, returns status and body. */
  json<T = unknown>(
    method: string,
    path: string,
    options?: { body?: unknown; key?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: T; headers: Headers }>;
  mf: Miniflare;
  /** The program host process, unless `programHost: false`. */
  programHost: ProgramHostProcess | undefined;
  /** Where the service listens for HTTP (a loopback URL; only reachable when `port` was given). */
  url: URL;
  dispose(): Promise<void>;
}

function bundlePath(dir: string): string {
  for (const name of ["test-worker.js", "index.js", "worker.js"]) {
    if (existsSync(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  throw new Error(`no bundle in ${dir}: run through vitest (globalSetup builds it)`);
}

/** The service's static assets options (console, API reference), as wrangler resolves wrangler.toml's [assets]: written by global-setup.ts. */
export const ASSETS_OPTIONS_FILE = ".test-build/main/assets.json";

function assetsOptions(): Pick<WorkerOptions, "assets"> {
  const assets = JSON.parse(readFileSync(ASSETS_OPTIONS_FILE, "utf8")) as WorkerOptions["assets"] | null;
  if (assets === null || assets === undefined) throw new Error("wrangler.toml names no [assets]");
  return { assets };
}

const defaultOutbound: OutboundHandler = (request) => new Response(JSON.stringify({ error: `no outbound handler for ${request.url}` }), { status: 599 });

function captureRuntimeOutput(onOutput: (text: string) => void): (stdout: Readable, stderr: Readable) => void {
  return (stdout, stderr) => {
    for (const stream of [stdout, stderr]) stream.on("data", (chunk: Buffer) => onOutput(chunk.toString()));
  };
}

/** The service's outbound fetches, handed to a Node function (the test's network). */
function forwardTo(outbound: OutboundHandler): (request: MfRequest) => Promise<MfResponse> {
  return async (request) => {
    const response = await outbound(
      new Request(request.url, {
        method: request.method,
        headers: request.headers as unknown as HeadersInit,
        body: request.method === "GET" || request.method === "HEAD" ? null : await request.arrayBuffer(),
        redirect: "manual",
      }),
    );
    const nullBody = [101, 204, 205, 304].includes(response.status);
    return new MfResponse(nullBody ? null : await response.arrayBuffer(), {
      status: response.status,
      headers: Object.fromEntries(response.headers.entries()),
    });
  };
}

/** Start a fresh service (in-memory storage) for one test file. */
export async function startService(options: ServiceOptions = {}): Promise<TestService> {
  const outbound = options.outbound ?? defaultOutbound;
  // Names are looked up only on workerd's own network; a scripted network answers invented names.
  const programHost = options.programHost === false ? undefined : await startProgramHost(options.watchdog, options.lookupOnlyNetwork === true);
  const mf = new Miniflare({
    ...(options.durableObjectsPersist === undefined ? {} : { durableObjectsPersist: options.durableObjectsPersist }),
    ...(options.port === undefined ? {} : { host: "127.0.0.1", port: options.port }),
    ...(options.inspectorPort === undefined ? {} : { inspectorPort: options.inspectorPort }),
    ...(options.onRuntimeOutput === undefined ? {} : { handleRuntimeStdio: captureRuntimeOutput(options.onRuntimeOutput) }),
    ...(options.runtimeWarnings === true ? { verbose: true } : {}),
    workers: [
      {
        name: "atc-edge",
        modules: true,
        modulesRules: [
          { type: "CompiledWasm", include: ["**/*.wasm"] },
          { type: "Text", include: ["**/*.js.txt"] },
          { type: "Data", include: ["**/*.wasm.bin"] },
        ],
        scriptPath: bundlePath(".test-build/main"),
        ...assetsOptions(),
        compatibilityDate: "2026-04-20",
        compatibilityFlags: ["nodejs_compat", "global_fetch_strictly_public"],
        durableObjects: {
          // The shipped TenantObject plus a test-only eviction hook (test/helpers/test-worker.ts).
          TENANTS: { className: "EvictableTenantObject", useSQLite: true },
          DIRECTORY: { className: "DirectoryObject", useSQLite: true },
        },
        kvNamespaces: ["PROTOCOLS", "OAUTH_KV"],
        workerLoaders: { LOADER: {} },
        serviceBindings: {
          SIMULATED_WORLD: "atc-edge-world",
          ...(programHost === undefined ? {} : { PROGRAM_HOST: { external: { address: programHost.address, http: {} } } }),
        },
        bindings: {
          ...(programHost === undefined ? {} : { PROGRAM_HOST_SECRET: programHost.secret }),
          ADMIN_TOKEN,
          CREDENTIALS_KEY,
          SIMULATED_WORLD_ORIGIN: WORLD_ORIGIN,
          MODEL_BASE_URL,
          MODEL_NAME: "scripted",
          MODEL_API_KEY: "sk-test-model-key",
          ...options.bindings,
        },
        outboundService: options.lookupOnlyNetwork === true ? { network: { allow: [], deny: [] } } : forwardTo(outbound),
      },
      {
        name: "atc-edge-world",
        modules: true,
        scriptPath: bundlePath(".test-build/world"),
        compatibilityDate: "2026-04-20",
      },
      ...(options.extraWorkers ?? []),
    ],
  });
  let url: URL;
  try {
    url = await mf.ready;
  } catch (error) {
    await programHost?.dispose();
    throw error;
  }

  const service: TestService = {
    mf,
    programHost,
    url,
    async fetch(path, init) {
      const response = await mf.dispatchFetch(`http://atc.test${path}`, init as never);
      const nullBody = [101, 204, 205, 304].includes(response.status);
      return new Response(nullBody ? null : await response.arrayBuffer(), {
        status: response.status,
        headers: Object.fromEntries(response.headers.entries()),
      });
    },
    async json(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
      let body: string | undefined;
      if (opts.body !== undefined) {
        headers["content-type"] ??= "application/json";
        body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
      }
      const response = await service.fetch(path, { method, headers, ...(body === undefined ? {} : { body }) });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text === "" ? null : JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, body: parsed as never, headers: response.headers };
    },
    async dispose() {
      await Promise.all([mf.dispose(), programHost?.dispose()]);
    },
  };
  return service;
}

/** Create a tenant through the admin API; returns its id and first key. */
export async function createTenant(service: TestService, id: string): Promise<{ id: string; key: string }> {
  const created = await service.json<{ apiKey: { key: string } }>("POST", "/admin/tenants", {
    key: ADMIN_TOKEN,
    body: { id, name: `Tenant ${id}` },
  });
  if (created.status !== 201) throw new Error(`tenant creation failed: ${created.status} ${JSON.stringify(created.body)}`);
  return { id, key: created.body.apiKey.key };
}

/** How long the service takes to answer GET /health (failing unless it answers 200). */
export async function healthLatency(service: TestService): Promise<number> {
  const started = performance.now();
  const res = await service.fetch("/health");
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`/health answered ${res.status}`);
  return performance.now() - started;
}
