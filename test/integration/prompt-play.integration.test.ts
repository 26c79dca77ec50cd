import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promptOverrides } from "../../functions/services/protocol-overrides";
import { renderToolSignature } from "../../functions/chain/typed-api";
import type { StoredProtocol } from "../../functions/storage/protocol-store";
import { countTokens } from "../../functions/text/token-count";
import { ToolDefinition } from "../../functions/tools/definition";
import { figure2World, RATES_TOOL } from "../helpers/figure2-world";
import { waitForJob } from "../helpers/jobs";
import { createTenant, startService, type TestService } from "../helpers/service";

/**
 * The paper's Figure 2 through the whole service: a tool whose documentation names
 * `start_date`/`end_date` (required) while it accepts `from`/`to` (optional) and rejects the old
 * names with an error message. The scripted model plays the optimiser and the base model; the
 * tool answers for real (through the safe-call path) from this test's outbound handler.
 */

let service: TestService;
let tenant: { id: string; key: string };
const world = figure2World();

beforeAll(async () => {
  service = await startService({ outbound: world.outbound });
  tenant = await createTenant(service, "player");
  const imported = await service.json("POST", "/v1/tools/import", {
    key: tenant.key,
    body: {
      format: "list",
      tools: [RATES_TOOL],
    },
  });
  expect(imported.status).toBe(200);
});
afterAll(async () => service.dispose());

interface Job {
  status: string;
  result: {
    improved: boolean;
    version: number | null;
    bestDescription: string;
    bestScore: number;
    originalScore: number;
    usage: { calls: number; totalTokens: number };
  } | null;
  progress: { beams?: { phase: string; depth: number }[] };
  lastError: string | null;
}

describe("Play2Prompt jobs", () => {
  it("finds a description that names from/to and solves more demonstrations than the original", async () => {
    const started = await service.json<{ jobId: string }>("POST", "/v1/tools/getHistoricalRates/optimize", {
      key: tenant.key,
      body: { settings: { depth: 2, beamWidth: 2, expansionsPerNode: 2, refineSteps: 1 } },
    });
    expect(started.status).toBe(202);
    const job = await waitForJob<Job>(service, tenant.key, started.body.jobId, 120_000);
    expect(job.status, JSON.stringify(job.lastError)).toBe("succeeded");
    expect(job.result?.improved).toBe(true);
    expect(job.result?.bestDescription).toMatch(/`from`.*`to`/);
    expect(job.result?.bestScore ?? 0).toBeGreaterThan(job.result?.originalScore ?? 1);
    expect(job.result?.usage.calls).toBeGreaterThan(0);
    expect(job.progress.beams?.some((b) => b.phase === "descriptions")).toBe(true);
    expect(world.toolCalls()).toBeGreaterThan(0);

    // The new description is a protocol version, current, and what runs will now see.
    const current = await service.json<{ version: number; source: string; runTokens: number; protocol: StoredProtocol & { description: string } }>(
      "GET",
      "/v1/tools/getHistoricalRates/protocol",
      { key: tenant.key },
    );
    expect(current.body).toMatchObject({ source: "optimize", version: job.result?.version });
    expect(current.body.protocol.description).toBe(job.result?.bestDescription);
    // What a run prompt shows of the tool with this version is counted when it is recorded.
    const tool = await service.json<{ definition: unknown }>("GET", "/v1/tools/getHistoricalRates", { key: tenant.key });
    const definition = ToolDefinition.parse(tool.body.definition);
    expect(current.body.runTokens).toBe(countTokens(renderToolSignature(definition, promptOverrides(current.body.protocol))));
    // Routing shows the optimised description too, in its candidates and its OpenAI tools array.
    const routed = await service.json<{ candidates: { name: string; description: string }[]; tools: { function: { description: string } }[] }>(
      "POST",
      "/v1/route",
      {
        key: tenant.key,
        body: { task: "historical exchange rates", k: 1 },
      },
    );
    expect(routed.body.candidates[0]?.description).toContain("`from`");
    expect(routed.body.tools[0]?.function.description).toContain("`from`");
  });

  it("pins and rolls back protocol versions", async () => {
    const versions = await service.json<{ versions: { version: number }[] }>("GET", "/v1/tools/getHistoricalRates/protocol/versions", { key: tenant.key });
    const latest = versions.body.versions.at(-1)?.version ?? 0;
    expect(latest).toBeGreaterThan(0);
    const missing = await service.json("PUT", "/v1/tools/getHistoricalRates/protocol/pin", { key: tenant.key, body: { version: latest + 10 } });
    expect(missing.status).toBe(404);
    const pinned = await service.json<{ version: number; pinned: boolean }>("PUT", "/v1/tools/getHistoricalRates/protocol/pin", {
      key: tenant.key,
      body: { version: latest },
    });
    expect(pinned.body).toMatchObject({ version: latest, pinned: true });
    const unpinned = await service.json<{ pinned: boolean }>("PUT", "/v1/tools/getHistoricalRates/protocol/pin", { key: tenant.key, body: { version: null } });
    expect(unpinned.body.pinned).toBe(false);
  });

  it("rejects unknown tools and absurd settings", async () => {
    expect((await service.json("POST", "/v1/tools/noSuchTool/optimize", { key: tenant.key, body: {} })).status).toBe(404);
    const absurd = await service.json<{ errors: { path: string }[] }>("POST", "/v1/tools/getHistoricalRates/optimize", {
      key: tenant.key,
      body: { settings: { depth: 1000, beamWidth: 0 } },
    });
    expect(absurd.status).toBe(400);
    expect(absurd.body.errors.map((e) => e.path).join(" ")).toMatch(/depth|beamWidth/);
  });
});
