import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promptOverrides } from "../../functions/services/protocol-overrides";
import { signatureTokens } from "../../functions/chain/tool-cost";
import { renderToolsApi } from "../../functions/chain/typed-api";
import type { StoredProtocol } from "../../functions/storage/protocol-store";
import { countTokens } from "../../functions/text/token-count";
import { ToolDefinition } from "../../functions/tools/definition";
import { signWebhook } from "../../functions/webhooks/standard-webhooks";
import { tenantObject } from "../helpers/tenant-object";
import { waitForJob } from "../helpers/jobs";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as { paths: Record<string, unknown> };

let service: TestService;
let tenant: { id: string; key: string };
let secret: string;

interface Job {
  status: string;
  result: { probed: number; failed: number; results: { tool: string; status: string; how?: string; helpers?: string[]; resumed?: boolean }[] } | null;
  items: { tool: string; status: string }[];
}

async function deliver(body: string, headers: Record<string, string>) {
  return service.json<{ jobId: string | null; duplicate: boolean; changed: string[]; type?: string; detail?: string }>(
    "POST",
    `/v1/webhooks/${tenant.id}/tools`,
    {
      body,
      headers: { "content-type": "application/json", ...headers },
    },
  );
}

async function signed(body: string, id: string, timestamp = Math.floor(Date.now() / 1000)) {
  return { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": await signWebhook(secret, id, timestamp, body) };
}

/** A small TMDB document: search (hands out person ids) and credits (needs one). */
function smallDoc(extraDescription = ""): Record<string, unknown> {
  const paths = { "/search/person": tmdb.paths["/search/person"], "/person/{person_id}/movie_credits": tmdb.paths["/person/{person_id}/movie_credits"] };
  const doc = JSON.parse(JSON.stringify({ ...tmdb, paths })) as Record<string, unknown> & { info: Record<string, unknown> };
  doc.info = { ...doc.info, description: `small TMDB${extraDescription}` };
  if (extraDescription !== "") {
    const search = (paths["/search/person"] as { get: Record<string, unknown> }).get;
    JSON.parse(JSON.stringify(doc)) as unknown;
    ((doc.paths as Record<string, { get: Record<string, unknown> }>)["/search/person"] as { get: Record<string, unknown> }).get = {
      ...search,
      description: `Search for people.${extraDescription}`,
    };
  }
  return doc;
}

beforeAll(async () => {
  // No model: these jobs must get as far as the zero-token path and chain of probing take them.
  service = await startService({ bindings: { MODEL_API_KEY: "" } });
  tenant = await createTenant(service, "prober");
  const created = await service.json<{ secret: string }>("POST", "/v1/webhooks/secrets", { key: tenant.key, body: {} });
  expect(created.status).toBe(201);
  secret = created.body.secret;
  expect(secret).toMatch(/^whsec_/);
  const listed = await service.json("GET", "/v1/webhooks/secrets", { key: tenant.key });
  expect(JSON.stringify(listed.body)).not.toContain(secret);
});
afterAll(async () => service.dispose());

describe("signed webhooks", () => {
  it("rejects missing, wrong, altered, stale and future-dated signatures, changing nothing", async () => {
    const body = JSON.stringify({ openapi: smallDoc(), serverUrl: `${WORLD_ORIGIN}/tmdb` });
    const good = await signed(body, "msg_reject");
    const cases: Record<string, string>[] = [
      {},
      { ...good, "webhook-signature": "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" },
      { ...good, "webhook-signature": "" },
      // 420 s, not 301: the tolerance is 300 s, and on a loaded machine the request can reach the
      // Worker seconds after it was signed, which would bring a 301 s future stamp inside it.
      await signed(body, "msg_old", Math.floor(Date.now() / 1000) - 420),
      await signed(body, "msg_future", Math.floor(Date.now() / 1000) + 420),
    ];
    for (const headers of cases) {
      const res = await deliver(body, headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
    }
    const altered = await deliver(body.replace("small TMDB", "small TMDb"), good);
    expect(altered.status).toBe(401);
    const tools = await service.json<{ tools: unknown[] }>("GET", "/v1/tools", { key: tenant.key });
    expect(tools.body.tools).toEqual([]);
  });

  it("registers the tools and starts exactly one probe job for a delivery sent 10 times at once", async () => {
    const body = JSON.stringify({ openapi: smallDoc(), serverUrl: `${WORLD_ORIGIN}/tmdb`, source: "tmdb-small" });
    const headers = await signed(body, "msg_dup_1");
    const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(body, headers)));
    // Redeliveries while the first is handled answer 409 (retry later), after it 202 duplicate.
    expect(answers.every((a) => a.status === 202 || a.status === 409)).toBe(true);
    const fresh = answers.filter((a) => a.status === 202 && !a.body.duplicate);
    expect(fresh).toHaveLength(1);
    const again = await deliver(body, headers);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ duplicate: true, jobId: fresh[0]?.body.jobId });
    const jobId = fresh[0]?.body.jobId ?? "";
    expect(fresh[0]?.body.changed.sort()).toEqual(["getPersonPersonIdMovieCredits", "getSearchPerson"]);
    const jobs = await service.json<{ jobs: { id: string; kind: string }[] }>("GET", "/v1/jobs", { key: tenant.key });
    expect(jobs.body.jobs.filter((j) => j.kind === "probe")).toHaveLength(1);

    // Chain of probing: the credits tool needs a person id that only the search hands out.
    const job = await waitForJob<Job>(service, tenant.key, jobId);
    expect(job.status, JSON.stringify(job)).toBe("succeeded");
    const byTool = new Map(job.result?.results.map((r) => [r.tool, r]));
    expect(byTool.get("getSearchPerson")).toMatchObject({ status: "probed", how: "direct" });
    expect(byTool.get("getPersonPersonIdMovieCredits")).toMatchObject({ status: "probed", how: "helper_chain", helpers: ["getSearchPerson"] });

    const protocol = await service.json<{
      kvKey: string;
      hash: string;
      runTokens: number | null;
      protocol: StoredProtocol & { responseSchema: Record<string, unknown> };
    }>("GET", "/v1/tools/getPersonPersonIdMovieCredits/protocol", { key: tenant.key });
    expect(protocol.status).toBe(200);
    expect(protocol.body.kvKey).toBe(`protocol/${tenant.id}/getPersonPersonIdMovieCredits/${protocol.body.hash}`);
    expect(protocol.body.protocol.responseSchema).toHaveProperty("cast");

    // What a run prompt will show of the tool (its signature with the probed schema and example)
    // is counted when the version is recorded, and run candidate sets spend that figure.
    const tool = await service.json<{ definition: unknown }>("GET", "/v1/tools/getPersonPersonIdMovieCredits", { key: tenant.key });
    const definition = ToolDefinition.parse(tool.body.definition);
    const shown = countTokens(
      renderToolsApi([definition], new Map([[definition.name, promptOverrides(protocol.body.protocol)]]))
        .split("\n")
        .slice(1, -1)
        .join("\n"),
    );
    expect(protocol.body.runTokens).toBe(shown);
    // Not the registered definition's figure: the probed schema and the example replace and add text.
    expect(protocol.body.runTokens).not.toBe(signatureTokens(definition));
    const routing = (await tenantObject(service, tenant.id)).store("routing");
    const set = await routing.candidates("movie credits of a person", { seeds: 3, maxTools: 6, tokenBudget: 100_000 });
    expect(set.candidates.map((c) => c.tool)).toContain("getPersonPersonIdMovieCredits");
    const searchTool = await service.json<{ definition: unknown }>("GET", "/v1/tools/getSearchPerson", { key: tenant.key });
    const search = await service.json<{ runTokens: number }>("GET", "/v1/tools/getSearchPerson/protocol", { key: tenant.key });
    expect(search.body.runTokens).not.toBe(signatureTokens(ToolDefinition.parse(searchTool.body.definition)));
    // Both tools are probed, so the set's cost is their recorded figures.
    expect(set.tokens).toBe(
      set.candidates.reduce(
        (sum, c) => sum + (c.tool === "getSearchPerson" ? search.body.runTokens : c.tool === "getPersonPersonIdMovieCredits" ? shown : Number.NaN),
        0,
      ),
    );
  });

  it("keeps the protocol key for an unchanged tool and makes a new one for a changed tool", async () => {
    const before = await service.json<{ kvKey: string }>("GET", "/v1/tools/getSearchPerson/protocol", { key: tenant.key });
    const creditsBefore = await service.json<{ kvKey: string }>("GET", "/v1/tools/getPersonPersonIdMovieCredits/protocol", { key: tenant.key });
    const body = JSON.stringify({ openapi: smallDoc(" Now with a changed description."), serverUrl: `${WORLD_ORIGIN}/tmdb`, source: "tmdb-small" });
    const res = await deliver(body, await signed(body, "msg_change_1"));
    expect(res.status).toBe(202);
    expect(res.body.changed).toEqual(["getSearchPerson"]);
    const job = await waitForJob<Job>(service, tenant.key, res.body.jobId ?? "");
    expect(job.result?.results.map((r) => r.tool)).toEqual(["getSearchPerson"]);
    const after = await service.json<{ kvKey: string; stale: boolean }>("GET", "/v1/tools/getSearchPerson/protocol", { key: tenant.key });
    expect(after.body.kvKey).not.toBe(before.body.kvKey);
    expect(after.body.stale).toBe(false);
    const creditsAfter = await service.json<{ kvKey: string }>("GET", "/v1/tools/getPersonPersonIdMovieCredits/protocol", { key: tenant.key });
    expect(creditsAfter.body.kvKey).toBe(creditsBefore.body.kvKey);
    const versions = await service.json<{ versions: { version: number }[] }>("GET", "/v1/tools/getSearchPerson/protocol/versions", { key: tenant.key });
    expect(versions.body.versions.map((v) => v.version)).toEqual([1, 2]);
  });

  it("accepts a delivery signed with the previous secret during rotation", async () => {
    const old = secret;
    const rotated = await service.json<{ secret: string }>("POST", "/v1/webhooks/secrets", { key: tenant.key, body: { graceSeconds: 3600 } });
    expect(rotated.body.secret).not.toBe(old);
    const body = JSON.stringify({ changed: ["getSearchPerson"] });
    const res = await deliver(body, await signed(body, "msg_rotation"));
    expect(res.status).toBe(202);
    secret = rotated.body.secret;
    const res2 = await deliver(body, await signed(body, "msg_rotation_2"));
    expect(res2.status).toBe(202);
  });
});

describe("probe API", () => {
  it("probes on request, and rejects unknown tools", async () => {
    const t = await createTenant(service, "prober-two");
    await service.json("POST", "/v1/tools/import", { key: t.key, body: { format: "openapi", document: smallDoc(), serverUrl: `${WORLD_ORIGIN}/tmdb` } });
    const unknown = await service.json("POST", "/v1/probe", { key: t.key, body: { tools: ["ghost"] } });
    expect(unknown.status).toBe(400);
    const started = await service.json<{ jobId: string; tools: string[] }>("POST", "/v1/probe", { key: t.key, body: { chainIterations: 0 } });
    expect(started.status).toBe(202);
    expect(started.body.tools).toHaveLength(2);
    const job = await waitForJob<Job>(service, t.key, started.body.jobId);
    // Without chain of probing, the credits tool cannot get a valid person id.
    const byTool = new Map(job.result?.results.map((r) => [r.tool, r]));
    expect(byTool.get("getSearchPerson")?.status).toBe("probed");
    expect(byTool.get("getPersonPersonIdMovieCredits")?.status).toBe("failed");
    // Another tenant cannot see the job.
    expect((await service.json("GET", `/v1/jobs/${started.body.jobId}`, { key: tenant.key })).status).toBe(404);

    // A stored value that does not parse is reported, never shown or built on: probing again replaces it.
    const path = "/v1/tools/getSearchPerson/protocol";
    const good = await service.json<{ kvKey: string; version: number; protocol: unknown }>("GET", path, { key: t.key });
    const kv = await service.mf.getKVNamespace("PROTOCOLS");
    await kv.put(good.body.kvKey, JSON.stringify({ name: "getSearchPerson", note: "not a protocol" }));
    const broken = await service.json<{ type: string; detail: string }>("GET", path, { key: t.key });
    expect(broken.status).toBe(500);
    expect(broken.body.detail).toBe(
      `The stored protocol of getSearchPerson (version ${good.body.version}) is malformed and is not used; probe the tool again or pin another version.`,
    );
    const again = await service.json<{ jobId: string }>("POST", "/v1/probe", { key: t.key, body: { tools: ["getSearchPerson"], chainIterations: 0 } });
    const reprobed = await waitForJob<Job>(service, t.key, again.body.jobId);
    expect(reprobed.result?.results.find((r) => r.tool === "getSearchPerson")).toMatchObject({ status: "probed", resumed: false });
    const healed = await service.json<{ kvKey: string; protocol: { name: string; responseSchema: unknown } }>("GET", path, { key: t.key });
    expect(healed.status).toBe(200);
    expect(healed.body.kvKey).toBe(good.body.kvKey);
    expect(healed.body.protocol).toMatchObject({ name: "getSearchPerson", responseSchema: expect.any(Object) });
  });
});
