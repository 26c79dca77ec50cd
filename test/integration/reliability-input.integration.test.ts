import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signWebhook } from "../../functions/webhooks/standard-webhooks";
import { createTenant, startService, type TestService } from "../helpers/service";

/** Reliability items 1–3 of issue 12: wrong media types, deep JSON, no storage for strangers. */

let service: TestService;
let tenant: { id: string; key: string };
let storageDir: string;
let address = 0;

/** A distinct client address per request, so the bad-key limit per address stays out of the way. */
function fresh(headers: Record<string, string> = {}): Record<string, string> {
  address++;
  return { "cf-connecting-ip": `198.51.100.${address % 250}`, ...headers };
}

/** Every SQLite file the tenant objects have on disk, with its size. */
function tenantDatabases(): { name: string; bytes: number }[] {
  const found: { name: string; bytes: number }[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/TenantObject/.test(path) && entry.name.endsWith(".sqlite")) found.push({ name: path, bytes: statSync(path).size });
    }
  };
  walk(storageDir);
  return found;
}

beforeAll(async () => {
  storageDir = mkdtempSync(join(tmpdir(), "atc-reliability-"));
  service = await startService({ durableObjectsPersist: storageDir });
  tenant = await createTenant(service, "steady-co");
});

afterAll(async () => {
  await service.dispose();
  rmSync(storageDir, { recursive: true, force: true });
});

describe("1. a JSON route given another media type", () => {
  const body = JSON.stringify({ task: "x" });
  for (const contentType of ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x", undefined]) {
    it(`answers 415 problem+json for ${contentType ?? "no Content-Type"}, not 500`, async () => {
      const headers = fresh({ authorization: `Bearer ${tenant.key}` });
      if (contentType !== undefined) headers["content-type"] = contentType;
      const res = await service.fetch("/v1/route", { method: "POST", headers, body });
      expect(res.status).toBe(415);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      const problem = (await res.json()) as { type: string; detail: string };
      expect(problem.type).toBe("https://atc-edge.dev/problems/unsupported-media-type");
      expect(problem.detail).toContain("application/json");
    });
  }

  it("still accepts application/json with a charset", async () => {
    const res = await service.json("POST", "/v1/route", { key: tenant.key, body, headers: fresh({ "content-type": "application/json; charset=utf-8" }) });
    expect(res.status).toBe(200);
  });
});

describe("2. deeply nested JSON", () => {
  const deepObject = `${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}`;
  const deepArray = "[".repeat(50_000) + "]".repeat(50_000);
  const cases: [string, string, string][] = [
    ["PUT", "/v1/graph", deepObject],
    ["PUT", "/v1/graph", '{"a":'.repeat(50_000)],
    ["POST", "/v1/tools/import", `{"format":"list","tools":${deepArray}}`],
    ["POST", "/v1/route", `{"task":"x","k":${deepArray}}`],
    ["PUT", "/v1/settings/model", deepObject],
  ];
  for (const [method, path, text] of cases) {
    it(`${method} ${path} answers 400 problem+json (${text.length} bytes)`, async () => {
      const before = await service.json("GET", "/v1/graph", { key: tenant.key, headers: fresh() });
      const res = await service.json<{ type: string }>(method, path, { key: tenant.key, body: text, headers: fresh() });
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(res.body.type).toMatch(/json-too-deep|malformed-json/);
      const after = await service.json("GET", "/v1/graph", { key: tenant.key, headers: fresh() });
      expect(after.body).toEqual(before.body);
    });
  }

  it("accepts the 64 levels a real document may need", async () => {
    const nested = `${'{"a":'.repeat(60)}1${"}".repeat(60)}`;
    const res = await service.json<{ type: string }>("PUT", "/v1/graph", { key: tenant.key, body: `{"x":${nested}}`, headers: fresh() });
    expect(res.status).not.toBe(500);
    expect(res.body.type).not.toMatch(/json-too-deep/);
  });
});

describe("3. requests for tenants that do not exist", () => {
  it("create no tenant storage, and answer exactly as a wrong key does", async () => {
    const databasesBefore = tenantDatabases();
    expect(databasesBefore.length).toBeGreaterThan(0);
    const ghostTimes: number[] = [];
    const wrongTimes: number[] = [];
    const ghostBodies = new Set<string>();
    const wrongBodies = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const secret = "x".repeat(32);
      let started = performance.now();
      const ghost = await service.json("GET", "/v1/tools", { key: `atc_ghost-${i}_${secret}`, headers: fresh() });
      ghostTimes.push(performance.now() - started);
      started = performance.now();
      const wrong = await service.json("GET", "/v1/tools", { key: `atc_${tenant.id}_${secret}`, headers: fresh() });
      wrongTimes.push(performance.now() - started);
      expect(ghost.status).toBe(401);
      expect(wrong.status).toBe(401);
      ghostBodies.add(JSON.stringify(ghost.body));
      wrongBodies.add(JSON.stringify(wrong.body));

      const body = JSON.stringify({ changed: ["x"] });
      const timestamp = Math.floor(Date.now() / 1000);
      const id = `msg_${i}`;
      const signature = await signWebhook(`whsec_${btoa("k".repeat(24))}`, id, timestamp, body);
      const hook = await service.json("POST", `/v1/webhooks/ghost-hook-${i}/tools`, {
        body,
        headers: fresh({ "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signature }),
      });
      expect(hook.status).toBe(401);
      // Admin routes do not create storage for a made-up tenant either.
      const keys = await service.json("POST", `/admin/tenants/ghost-admin-${i}/keys`, { key: "test-admin-token", body: {}, headers: fresh() });
      expect(keys.status).toBe(404);
    }
    expect([...ghostBodies]).toEqual([...wrongBodies]);
    expect(
      tenantDatabases()
        .map((d) => d.name)
        .sort(),
    ).toEqual(databasesBefore.map((d) => d.name).sort());
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    console.log(
      `[reliability 3] tenant databases before/after 60 stranger requests: ${databasesBefore.length}/${tenantDatabases().length}; ` +
        `401 median: unknown tenant ${median(ghostTimes).toFixed(1)} ms, wrong key of a real tenant ${median(wrongTimes).toFixed(1)} ms`,
    );
  });
});

describe("5. credential values that would be printed by the runtime", () => {
  it("are refused at PUT with 400 naming the field, never echoing the value", async () => {
    const cases = [
      { scope: { server: "https://api.example.com" }, scheme: "bearer", value: "s\u00e9cr\u00e8t-token-123" },
      { scope: { server: "https://api.example.com" }, scheme: "bearer", value: "two words" },
      { scope: { server: "https://api.example.com" }, scheme: "apiKey", in: "header", name: "X-Key", value: "line\r\nX-Evil: 1" },
      { scope: { server: "https://api.example.com" }, scheme: "apiKey", in: "header", name: "Bad Header", value: "ok" },
    ];
    for (const body of cases) {
      const res = await service.json<{ type: string; errors: { path: string; message: string }[] }>("PUT", "/v1/credentials", {
        key: tenant.key,
        body,
        headers: fresh(),
      });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body)).not.toContain(body.value);
      expect(res.body.errors.map((e) => e.path)).toEqual(expect.arrayContaining([expect.stringMatching(/^(value|name)$/)]));
    }
    const model = await service.json("PUT", "/v1/settings/model", {
      key: tenant.key,
      body: { baseUrl: "https://api.example.com/v1", apiKey: "sk-\u00fcml\u00e4ut", model: "m" },
      headers: fresh(),
    });
    expect(model.status).toBe(400);
    const listed = await service.json<{ credentials: unknown[] }>("GET", "/v1/credentials", { key: tenant.key, headers: fresh() });
    expect(listed.body.credentials).toEqual([]);
  });
});
