import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";
import { ABANDONED_UPLOAD_MS } from "../../functions/storage/tenant-imports";
import { generatedDocument } from "../helpers/generated-openapi";
import { waitForJob } from "../helpers/jobs";
import { createTenant, startService, type TestService } from "../helpers/service";
import { routingPrepared, tenantObject } from "../helpers/tenant-object";
import { sendRefusedEarly } from "../helpers/early-refusal";

/**
 * Big documents import in the background, in workerd: a document above the JSON body limit is
 * uploaded as it is (or fetched by URL) and imported by a job, one batch per alarm here; the
 * job shows its progress mid-way, the tenant object is evicted mid-way, and the job resumes
 * from its stored cursor: one tool per operation in the end, none twice.
 */

const RESOURCES = 700;
const OPERATIONS = RESOURCES * 3;
const documentText = JSON.stringify(generatedDocument(RESOURCES));

let service: TestService;

beforeAll(async () => {
  service = await startService({
    bindings: { MAX_BODY_BYTES: "100000", IMPORT_URL_MAX_BYTES: "2000000", IMPORT_BATCH_OPERATIONS: "60", IMPORT_SLICE_MS: "1" },
    outbound: async (request) => {
      if (new URL(request.url).pathname === "/big.json") return new Response(documentText, { headers: { "content-type": "application/json" } });
      return new Response("not here", { status: 404 });
    },
    programHost: false,
  });
});
afterAll(async () => service.dispose());

interface ImportJob {
  status: string;
  progress: { phase?: string; operations?: { done: number; total: number }; tools?: { created: number } };
  result: { created: string[]; unchanged: string[]; warnings: string[]; error?: { code: string } } | null;
}

async function toolNames(key: string): Promise<string[]> {
  const tools = await service.json<{ tools: { name: string }[] }>("GET", "/v1/tools", { key });
  return tools.body.tools.map((t) => t.name);
}

describe("background import of a big document", () => {
  it("refuses the document inline (above the body limit), takes it as an upload, shows progress, and resumes after an eviction without duplicating tools", async () => {
    expect(documentText.length).toBeGreaterThan(100_000);
    const tenant = await createTenant(service, "big-upload");
    const inline = await sendRefusedEarly(() =>
      service.fetch("/v1/tools/import", {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
        body: JSON.stringify({ format: "openapi", document: documentText }),
      }),
    );
    expect(inline.status).toBe(413);

    const upload = await service.fetch("/v1/tools/import/upload?source=generated", {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
      body: documentText,
    });
    expect(upload.status).toBe(202);
    const accepted = (await upload.json()) as { jobId: string; bytes: number; job: string };
    expect(accepted.bytes).toBe(new TextEncoder().encode(documentText).length);
    expect(upload.headers.get("location")).toBe(`/v1/jobs/${accepted.jobId}`);

    // Mid-way: some operations done, not all; the tools so far are already listed.
    let midway: ImportJob | undefined;
    for (let i = 0; i < 600 && midway === undefined; i += 1) {
      const job = (await service.json<ImportJob>("GET", `/v1/jobs/${accepted.jobId}`, { key: tenant.key })).body;
      const done = job.progress.operations?.done ?? 0;
      if (done > 0 && done < OPERATIONS) midway = job;
      else if (job.status === "succeeded" || job.status === "failed") break;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(midway?.progress.operations?.total).toBe(OPERATIONS);
    expect(midway?.progress.tools?.created).toBe(midway?.progress.operations?.done);
    await tenantObject(service, tenant.id).then((object) => object.simulateEviction());
    const listedMidway = await toolNames(tenant.key);
    expect(listedMidway.length).toBeGreaterThan(0);

    const finished = await waitForJob<ImportJob>(service, tenant.key, accepted.jobId, 180_000);
    expect(finished.status).toBe("succeeded");
    expect(finished.result?.created).toHaveLength(OPERATIONS);
    const names = await toolNames(tenant.key);
    expect(names).toHaveLength(OPERATIONS);
    expect(new Set(names).size).toBe(OPERATIONS);
    expect(names).toEqual(expect.arrayContaining(["listThings0", "createThing699", "getThing", "getThing_2"]));

    // Routing is prepared once, after the job's last batch (each batch changed the catalog), not per batch;
    // the first step after an eviction reads what it made.
    const object = await tenantObject(service, tenant.id);
    await routingPrepared(object);
    expect(await object.store("routing").preparations()).toBe(1);
    await object.simulateEviction();
    const routed = await service.json("POST", "/v1/route", { key: tenant.key, body: { task: "get a thing", previousTool: "listThings0", k: 5 } });
    expect(routed.status).toBe(200);
    expect(await object.routingLoadReport()).toEqual({ index: "stored", graph: "stored", dataFlow: "stored" });
  }, 240_000);

  it("imports a document fetched by URL in the background when it is above the body limit, and a small one at once", async () => {
    const tenant = await createTenant(service, "big-url");
    const started = await service.json<{ jobId: string }>("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "openapi", url: "https://specs.example.com/big.json", source: "by-url" },
    });
    expect(started.status).toBe(202);
    const finished = await waitForJob<ImportJob>(service, tenant.key, started.body.jobId, 180_000);
    expect(finished.status).toBe("succeeded");
    expect(await toolNames(tenant.key)).toHaveLength(OPERATIONS);

    const small = {
      openapi: "3.0.3",
      info: { title: "s", version: "1" },
      servers: [{ url: "https://s.example.com" }],
      paths: { "/a": { get: { responses: {} } } },
    };
    const asked = await service.json<{ jobId: string }>("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "openapi", document: small, background: true },
    });
    expect(asked.status).toBe(202);
    expect((await waitForJob<ImportJob>(service, tenant.key, asked.body.jobId)).result?.created).toEqual(["getA"]);
    const pruned = await service.json<{ detail: string }>("POST", "/v1/tools/import", {
      key: tenant.key,
      body: { format: "openapi", document: small, background: true, prune: true },
    });
    expect(pruned.status).toBe(400);
    expect(pruned.body.detail).toMatch(/prune/);
  }, 240_000);

  it("imports a YAML document above the body limit, uploaded as it is, into the same tools as the JSON one; a broken one fails naming its line", async () => {
    const tenant = await createTenant(service, "big-yaml");
    const yamlText = stringifyYaml(generatedDocument(RESOURCES));
    expect(yamlText.length).toBeGreaterThan(100_000);
    const upload = await service.fetch("/v1/tools/import/upload?source=yaml", {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/yaml" },
      body: yamlText,
    });
    expect(upload.status).toBe(202);
    const finished = await waitForJob<ImportJob>(service, tenant.key, ((await upload.json()) as { jobId: string }).jobId, 180_000);
    expect(finished.status).toBe("succeeded");
    expect(finished.result?.created).toHaveLength(OPERATIONS);
    const names = await toolNames(tenant.key);
    expect(names).toHaveLength(OPERATIONS);
    expect(names).toEqual(expect.arrayContaining(["listThings0", "createThing699", "getThing", "getThing_2"]));

    const broken = await service.fetch("/v1/tools/import/upload", {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/yaml" },
      body: "openapi: 3.0.0\npaths:\n  /a:\n    get: [\n",
    });
    expect(broken.status).toBe(202);
    const failed = await waitForJob<ImportJob & { result: { error?: { message: string } } }>(
      service,
      tenant.key,
      ((await broken.json()) as { jobId: string }).jobId,
    );
    expect(failed.status).toBe("failed");
    expect(failed.result?.error?.code).toBe("unparseable");
    expect(failed.result?.error?.message).toMatch(/line 4/);
  }, 240_000);

  it("drops an upload abandoned mid-way by the object's alarm once its lifetime is over, not only at the next upload", async () => {
    const tenant = await createTenant(service, "big-abandoned");
    const object = await tenantObject(service, tenant.id);
    const before = Date.now();
    await object.store("imports").appendUpload("upl_abandoned", 0, new TextEncoder().encode('{"openapi": "3.0.0", "paths": {'));
    expect(await object.uploadChunks()).toBe(1);
    const alarm = await object.alarmAt();
    expect(alarm).toBeGreaterThanOrEqual(before + ABANDONED_UPLOAD_MS);
    expect(alarm).toBeLessThanOrEqual(Date.now() + ABANDONED_UPLOAD_MS);
    await object.runAlarm(); // within its lifetime: kept, and the alarm stays set for it
    expect(await object.uploadChunks()).toBe(1);
    expect(await object.alarmAt()).toBe(alarm);
    await object.ageUploads(ABANDONED_UPLOAD_MS);
    await object.runAlarm();
    expect(await object.uploadChunks()).toBe(0);
    expect(await object.alarmAt()).toBeNull();
  });

  it("refuses an upload over the import limit with 413", async () => {
    const tenant = await createTenant(service, "big-bad");
    const tooBig = await sendRefusedEarly(() =>
      service.fetch("/v1/tools/import/upload", {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
        body: `{"openapi":"3.0.0","x":"${"x".repeat(2_100_000)}"}`,
      }),
    );
    expect(tooBig.status).toBe(413);
    expect(tooBig.headers.get("content-type")).toMatch(/problem\+json/);
  });
});
