import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createTenant, startService, type TestService } from "../helpers/service";

/**
 * Property-based fuzzing of every operation in the service's own /openapi.json (issue 12):
 * requests built from each operation's schemas, then broken in every way a client can break
 * them (wrong media type, no body, random JSON, deep nesting, bad keys, odd path values).
 * Properties: errors are always problem+json with a matching status; no 500 for a client's
 * mistake; no stack trace in any answer; a failed write changes nothing stored.
 * Fixed seed and a bounded count, so a failure reproduces and the suite stays fast.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 12);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
};
interface Operation {
  method: string;
  path: string;
  auth: "tenant" | "admin" | "none" | "signature";
  body: Schema | undefined;
  params: string[];
  query: Record<string, Schema>;
}

/** Operations whose success would make the fuzz measure itself (quotas it lowers, its own key). */
const SKIPPED = new Set(["PUT /v1/settings/quotas"]);

/** Reads that make up the "stored state" of the fuzzed tenant (jobs and runs change on their own). */
const STATE_READS = [
  "/v1/tools",
  "/v1/credentials",
  "/v1/keys",
  "/v1/graph",
  "/v1/settings/model",
  "/v1/settings/graph",
  "/v1/settings/optimization",
  "/v1/webhooks/secrets",
  "/v1/settings/quotas",
];

let service: TestService;
let tenant: { id: string; key: string };
let operations: Operation[];
let components: Record<string, Schema> = {};
let address = 0;

function operationsOf(doc: {
  paths: Record<
    string,
    Record<
      string,
      {
        security?: Record<string, unknown>[];
        requestBody?: { content?: Record<string, { schema?: Schema }> };
        parameters?: { name: string; in: string; schema?: Schema }[];
      }
    >
  >;
}): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const security = JSON.stringify(op.security ?? []);
      const auth = path.startsWith("/v1/webhooks/{")
        ? "signature"
        : security.includes("adminToken")
          ? "admin"
          : security.includes("tenantKey")
            ? "tenant"
            : "none";
      const params = (op.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name);
      const query = Object.fromEntries((op.parameters ?? []).filter((p) => p.in === "query").map((p) => [p.name, p.schema ?? {}]));
      found.push({ method: method.toUpperCase(), path, auth, body: op.requestBody?.content?.["application/json"]?.schema, params, query });
    }
  }
  return found.filter((o) => !SKIPPED.has(`${o.method} ${o.path}`));
}

/** Values shaped by a (dereferenced-enough) JSON schema, often slightly wrong on purpose. */
function fromSchema(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || depth > 4) return fc.jsonValue({ maxDepth: 2 });
  if (schema.$ref !== undefined) return fromSchema(components[schema.$ref.replace("#/components/schemas/", "")], depth + 1);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives !== undefined && alternatives.length > 0) return fc.oneof(...alternatives.map((s) => fromSchema(s, depth + 1)));
  if (schema.enum !== undefined && schema.enum.length > 0) return fc.oneof(fc.constantFrom(...schema.enum), fc.string({ maxLength: 8 }));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object": {
      const props = Object.entries(schema.properties ?? {});
      if (props.length === 0) return fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
      return fc.record(Object.fromEntries(props.map(([k, s]) => [k, fromSchema(s, depth + 1)])), { requiredKeys: [] });
    }
    case "array":
      return fc.array(fromSchema(schema.items, depth + 1), { maxLength: 4 });
    case "integer": {
      const min = Math.max(Math.ceil(schema.minimum ?? -5), -1e6);
      const max = Math.max(min, Math.min(Math.floor(schema.maximum ?? min + 50), min + 1e6));
      return fc.oneof(fc.integer({ min, max }), fc.integer(), fc.double());
    }
    case "number":
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer());
    case "boolean":
      return fc.oneof(fc.boolean(), fc.constant("true"));
    case "string":
      return fc.oneof(
        fc.string({ maxLength: 20 }),
        fc.constantFrom("getThing", "https://api.example.com/v1", "http://10.0.0.1/", "", " ", "\u0000", "é".repeat(3), "x".repeat(300)),
      );
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

const deepJson = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;

interface Case {
  operation: Operation;
  pathValues: string[];
  query: Record<string, string>;
  auth: "valid" | "missing" | "malformed" | "unknown-tenant" | "wrong-secret";
  contentType: string | undefined;
  body: string | undefined;
}

function caseArbitrary(): fc.Arbitrary<Case> {
  return fc.integer({ min: 0, max: operations.length - 1 }).chain((index) => {
    const operation = operations[index] as Operation;
    const pathValue = fc.oneof(
      fc.constantFrom("getThing", "tenant-fuzz", "fuzz-co", "key_0000000000000000", "run_x", "job_x", "cred_x", "%2e%2e", "a%00b", "x".repeat(250)),
      fc.string({ minLength: 1, maxLength: 12 }).map(encodeURIComponent),
    );
    const validBody = fromSchema(operation.body).map((v) => JSON.stringify(v));
    const body = fc.oneof(
      { weight: 5, arbitrary: validBody },
      { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
      { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
      { weight: 1, arbitrary: fc.constantFrom(deepJson(5_000), "[".repeat(3_000), '{"a":', "", "null", "{}", "[]", '"\\ud800"') },
      { weight: 1, arbitrary: fc.constant(undefined) },
    );
    return fc.record({
      operation: fc.constant(operation),
      pathValues: fc.array(pathValue, { minLength: operation.params.length, maxLength: operation.params.length }),
      query: fc.record(Object.fromEntries(Object.entries(operation.query).map(([k, s]) => [k, fromSchema(s).map(String)])), {
        requiredKeys: [],
      }) as fc.Arbitrary<Record<string, string>>,
      auth: fc.oneof(
        { weight: 8, arbitrary: fc.constant("valid" as const) },
        { weight: 1, arbitrary: fc.constantFrom("missing" as const, "malformed" as const, "unknown-tenant" as const, "wrong-secret" as const) },
      ),
      contentType: fc.oneof(
        { weight: 6, arbitrary: fc.constant("application/json") },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            undefined,
            "text/plain",
            "application/x-www-form-urlencoded",
            "application/json; charset=utf-8",
            "application/merge-patch+json",
            "multipart/form-data; boundary=x",
          ),
        },
      ),
      body,
    });
  });
}

function requestFor(c: Case): { path: string; init: RequestInit } {
  let path = c.operation.path;
  c.operation.params.forEach((name, i) => {
    path = path.replace(`{${name}}`, c.pathValues[i] ?? "x");
  });
  const query = new URLSearchParams(c.query).toString();
  address++;
  const headers: Record<string, string> = { "cf-connecting-ip": `192.0.2.${address % 250}` };
  const secret = "s".repeat(32);
  const keys = {
    valid: c.operation.auth === "admin" ? ADMIN_TOKEN : tenant.key,
    missing: undefined,
    malformed: "not-a-key",
    "unknown-tenant": `atc_nobody-here_${secret}`,
    "wrong-secret": `atc_${tenant.id}_${secret}`,
  };
  const key = keys[c.auth];
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  const hasBody = c.operation.method !== "GET" && c.operation.method !== "DELETE" && c.body !== undefined;
  if (hasBody && c.contentType !== undefined) headers["content-type"] = c.contentType;
  return { path: query === "" ? path : `${path}?${query}`, init: { method: c.operation.method, headers, ...(hasBody ? { body: c.body } : {}) } };
}

async function storedState(): Promise<string> {
  const parts: string[] = [];
  for (const path of STATE_READS) {
    const res = await service.fetch(path, { headers: { authorization: `Bearer ${tenant.key}`, "cf-connecting-ip": "192.0.2.254" } });
    parts.push(`${path} ${res.status} ${await res.text()}`);
  }
  return parts.join("\n");
}

const STACK_TRACE = /\n\s+at\s|\bat\s+\S+\s+\(|\.(ts|js|mjs):\d+|node_modules|workerd/;

beforeAll(async () => {
  service = await startService({ bindings: { MODEL_API_KEY: "" } });
  tenant = await createTenant(service, "fuzz-co");
  await service.json("POST", "/v1/tools/import", {
    key: tenant.key,
    body: { format: "list", source: "fuzz", tools: [{ name: "getThing", method: "GET", url: "https://api.example.com/things/{id}" }] },
  });
  // Room for the fuzz itself: the quotas are not what is measured here.
  const loose = { perSecond: 10_000, burst: 100_000 };
  await service.json("PUT", "/v1/settings/quotas", {
    key: tenant.key,
    body: { rates: { reads: loose, writes: loose, routing: loose, toolCalls: loose, runs: loose, jobs: loose }, maxConcurrentJobs: 1_000 },
  });
  const doc = await service.json<Parameters<typeof operationsOf>[0] & { components?: { schemas?: Record<string, Schema> } }>("GET", "/openapi.json");
  components = doc.body.components?.schemas ?? {};
  operations = operationsOf(doc.body);
});

afterAll(async () => {
  await service.dispose();
});

describe("fuzz: every operation of /openapi.json", () => {
  it(`answers ${RUNS} generated requests well (seed ${SEED})`, async () => {
    expect(operations.length).toBeGreaterThan(30);
    const statuses = new Map<number, number>();
    const seen = new Set<string>();
    let state = await storedState();
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(caseArbitrary(), async (c) => {
        const { path, init } = requestFor(c);
        const res = await service.fetch(path, init);
        const text = await res.text();
        const where = `${init.method} ${path} (${c.auth}, ${c.contentType ?? "no type"}, body ${c.body?.slice(0, 80) ?? "none"}) → ${res.status} ${text.slice(0, 300)}`;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        seen.add(`${c.operation.method} ${c.operation.path}`);
        expect(res.status, where).not.toBe(500);
        // 502/503: the model endpoint or a service setting is missing here, never the client's fault.
        if (res.status >= 500) expect([502, 503], where).toContain(res.status);
        expect(text, where).not.toMatch(STACK_TRACE);
        if (res.status >= 400) {
          expect(res.headers.get("content-type"), where).toBe("application/problem+json");
          const problem = JSON.parse(text) as { type: string; status: number; title: string };
          expect(problem.status, where).toBe(res.status);
          expect(problem.type, where).toMatch(/^https:\/\/atc-edge\.dev\/problems\/[a-z-]+$/);
          if (init.method !== "GET") expect(await storedState(), where).toBe(state);
        } else if (init.method !== "GET") {
          state = await storedState();
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    const seconds = (performance.now() - started) / 1000;
    const summary = [...statuses.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s}×${n}`)
      .join(" ");
    console.log(`[fuzz] ${RUNS} requests over ${seen.size}/${operations.length} operations in ${seconds.toFixed(1)} s (seed ${SEED}): ${summary}`);
  }, 180_000);
});
