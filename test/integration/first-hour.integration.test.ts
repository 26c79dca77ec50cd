import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countTokens } from "../helpers/scripted-model";
import { createTenant, startService, type TestService } from "../helpers/service";

/**
 * Defects a new user met in their first hour (issue 13): settings that could not be changed one
 * field at a time, an optimisation job accepted without a model, failed runs missing from the list.
 * The service here has no model configured (MODEL_API_KEY unset); one tenant brings its own.
 */

const TENANT_MODEL = "https://model.example.com/v1";

let service: TestService;
let tenant: { id: string; key: string };
const modelRequests: string[] = [];

beforeAll(async () => {
  service = await startService({
    bindings: { MODEL_API_KEY: "" },
    outbound: (request) => {
      if (request.url.startsWith(TENANT_MODEL)) {
        modelRequests.push(request.url);
        return Response.json({ error: { message: "Incorrect API key provided", type: "invalid_request_error" } }, { status: 401 });
      }
      return Response.json({ ok: true });
    },
  });
  tenant = await createTenant(service, "newcomer");
  await service.json("POST", "/v1/tools/import", {
    key: tenant.key,
    body: {
      format: "list",
      source: "notes",
      tools: [{ name: "searchNotes", method: "GET", url: "https://notes.example.com/search", parameters: [{ name: "q", in: "query", type: "string" }] }],
    },
  });
});
afterAll(async () => service.dispose());

describe("optimisation settings", () => {
  it("accept one field alone and keep the others", async () => {
    const set = await service.json<{ autoOptimize: boolean; failureThreshold: number }>("PUT", "/v1/settings/optimization", {
      key: tenant.key,
      body: { failureThreshold: 5 },
    });
    expect(set.status).toBe(200);
    const off = await service.json<{ autoOptimize: boolean; failureThreshold: number }>("PUT", "/v1/settings/optimization", {
      key: tenant.key,
      body: { autoOptimize: false },
    });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ autoOptimize: false, failureThreshold: 5 });
  });

  it("still refuse unknown fields and wrong types", async () => {
    expect((await service.json("PUT", "/v1/settings/optimization", { key: tenant.key, body: { autoOptimise: true } })).status).toBe(400);
    expect((await service.json("PUT", "/v1/settings/optimization", { key: tenant.key, body: { autoOptimize: "yes" } })).status).toBe(400);
  });
});

describe("without a model", () => {
  it("refuses an optimisation job up front with 503, as runs do, and queues nothing", async () => {
    const optimize = await service.json<{ type: string; detail: string }>("POST", "/v1/tools/searchNotes/optimize", { key: tenant.key, body: {} });
    expect(optimize.status).toBe(503);
    expect(optimize.body.type).toMatch(/not-configured$/);
    expect(optimize.body.detail).toContain("MODEL_API_KEY");
    const run = await service.json("POST", "/v1/runs", { key: tenant.key, body: { task: "find my notes about taxes", tools: ["searchNotes"] } });
    expect(run.status).toBe(503);
    const jobs = await service.json<{ jobs: unknown[] }>("GET", "/v1/jobs", { key: tenant.key });
    expect(jobs.body.jobs).toEqual([]);
  });
});

describe("a tenant model server on this machine", () => {
  it("is refused while MODEL_ALLOW_LOOPBACK is not set, saying how to allow it", async () => {
    const answer = await service.json<{ detail: string }>("PUT", "/v1/settings/model", {
      key: tenant.key,
      body: { baseUrl: "http://localhost:11434/v1", apiKey: "ollama", model: "qwen2.5-coder:7b" },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toContain("MODEL_ALLOW_LOOPBACK=true");
    expect((await service.json<{ override: unknown }>("GET", "/v1/settings/model", { key: tenant.key })).body.override).toBeNull();
  });
});

describe("a run whose model endpoint fails", () => {
  it("is stored and listed as failed, saying what failed", async () => {
    const other = await createTenant(service, "own-model");
    await service.json("POST", "/v1/tools/import", {
      key: other.key,
      body: { format: "list", source: "notes", tools: [{ name: "searchNotes", method: "GET", url: "https://notes.example.com/search" }] },
    });
    const settings = await service.json("PUT", "/v1/settings/model", {
      key: other.key,
      body: { baseUrl: TENANT_MODEL, apiKey: "sk-wrong-key-0123456789", model: "gpt-4o-mini" },
    });
    expect(settings.status).toBe(200);
    const run = await service.json<{ status: number }>("POST", "/v1/runs", {
      key: other.key,
      body: { task: "find my notes about taxes", tools: ["searchNotes"] },
    });
    expect(run.status).toBe(502);
    expect(modelRequests.length).toBeGreaterThan(0);
    const listed = await service.json<{ runs: { id: string; status: string; task: string }[] }>("GET", "/v1/runs", { key: other.key });
    expect(listed.body.runs).toHaveLength(1);
    const [failed] = listed.body.runs;
    expect(failed).toMatchObject({ status: "failed", task: "find my notes about taxes" });
    const record = await service.json<{ status: string; error: { code: string; message: string } }>("GET", `/v1/runs/${failed?.id}`, { key: other.key });
    expect(record.body.status).toBe("failed");
    expect(record.body.error.code).toBe("model:auth");
    expect(record.body.error.message).toContain(failed?.id ?? "no id");
    expect(record.body.error.message).not.toContain("sk-wrong-key");
  });
});

describe("the whole tool set in one answer", () => {
  interface Export {
    format: string;
    count: number;
    tokens: { count: number; encoding: string };
    tools: Record<string, unknown>[];
  }

  it("comes as an OpenAI tools array with its token count", async () => {
    const answer = await service.json<Export>("GET", "/v1/export/tools?format=openai", { key: tenant.key });
    expect(answer.status).toBe(200);
    expect(answer.body.count).toBe(1);
    expect(answer.body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "searchNotes",
          description: "GET /search",
          parameters: { type: "object", properties: { q: { type: "string" } }, required: [], additionalProperties: false },
        },
      },
    ]);
    expect(answer.body.tokens).toEqual({ count: await countTokens(JSON.stringify(answer.body.tools)), encoding: "o200k_base", of: "tools" });
  });

  it("comes as an MCP tool list", async () => {
    const answer = await service.json<Export>("GET", "/v1/export/tools?format=mcp", { key: tenant.key });
    expect(answer.body.tools).toEqual([
      {
        name: "searchNotes",
        description: "GET /search",
        inputSchema: { type: "object", properties: { q: { type: "string" } }, required: [], additionalProperties: false },
      },
    ]);
    expect(answer.body.tokens.count).toBe(await countTokens(JSON.stringify(answer.body.tools)));
  });

  it("refuses an unknown format and another tenant sees only its own tools", async () => {
    expect((await service.json("GET", "/v1/export/tools?format=yaml", { key: tenant.key })).status).toBe(400);
    const other = await createTenant(service, "exporter-other");
    expect((await service.json<Export>("GET", "/v1/export/tools", { key: other.key })).body).toMatchObject({ format: "openai", count: 0, tools: [] });
  });
});
