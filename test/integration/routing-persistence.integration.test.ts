import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";

/**
 * The routing index and graph edges are stored and loaded after an eviction instead of rebuilt
 * (storage/routing-snapshots.ts). A load must give exactly the answers a fresh build gives.
 */

const tmdb = JSON.parse(readFileSync("kv-seed/world/restbench-tmdb/openapi.json", "utf8")) as Record<string, unknown>;

interface LoadReport {
  index: "stored" | "stored+pending" | "rebuilt";
  graph: "stored" | "rebuilt";
  dataFlow: "stored" | "computed" | "not loaded";
}
interface TenantStub {
  simulateEviction(options?: { olderFormats?: boolean }): Promise<void>;
  routingLoadReport(): Promise<LoadReport>;
  holdRoutingPreparation(held: boolean): Promise<void>;
  routingLoadedParts(): Promise<{ loaded: boolean; index: boolean; memory: boolean; apis: boolean; definitions: number }>;
  routingColdReads(): Promise<{ namesRead: boolean; nameChecks: number; countReads: number; countRanges: number; graphNodes: number | undefined }>;
  deleteToolRowUnnoticed(name: string): Promise<void>;
  taskMemoryRows(): Promise<{ tasks: number; rowsRead: number }>;
}

let service: TestService;
afterAll(async () => service.dispose());
beforeAll(async () => {
  service = await startService();
});

/**
 * The tenant's object with routing's preparation held: these tests watch what a load finds stored
 * or rebuilds, which an alarm firing between an eviction and a load would otherwise change
 * (routing-preparation.integration.test.ts tests the preparation).
 */
async function stubOf(tenantId: string): Promise<TenantStub> {
  const ns = await service.mf.getDurableObjectNamespace("TENANTS", "atc-edge");
  const stub = ns.get(ns.idFromName(tenantId)) as unknown as TenantStub;
  await stub.holdRoutingPreparation(true);
  return stub;
}

const TASKS = [
  "Who directed the movie Inception?",
  "find the movies of the actor Tom Hanks and their release dates",
  "what is trending this week on tv",
  "get the reviews of a movie",
  "list the collections a company produced",
  "xyzzy plugh",
];

/** Route answers for every task: first step, and a fused and a graph step after `previous`. */
async function answers(key: string, previous: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const task of TASKS) {
    for (const body of [
      { task, k: 10 },
      { task, k: 8, previousTool: previous },
      { task, k: 8, previousTool: previous, mode: "graph" },
    ]) {
      const res = await service.json<{ candidates: { name: string; weight: number }[]; via: string }>("POST", "/v1/route", { key, body });
      expect(res.status).toBe(200);
      out.push({ via: res.body.via, candidates: res.body.candidates.map((c) => [c.name, c.weight]) });
    }
  }
  return out;
}

/** Each task's first step (names and weights of its `k` candidates), in order. */
async function firstStepsOf(key: string, tasks: readonly string[], k: number): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const task of tasks) {
    const res = await service.json<{ candidates: { name: string; weight: number }[] }>("POST", "/v1/route", { key, body: { task, k } });
    expect(res.status).toBe(200);
    out.push(res.body.candidates.map((c) => [c.name, c.weight]));
  }
  return out;
}

/** Imports `tools` as a list from `source` into the tenant of `key`. */
const importList = (key: string, source: string, tools: readonly object[]) =>
  service.json("POST", "/v1/tools/import", { key, body: { format: "list", source, tools } });

async function setUp(name: string): Promise<{ id: string; key: string; names: string[] }> {
  const tenant = await createTenant(service, name);
  await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "openapi", document: tmdb, serverUrl: `${WORLD_ORIGIN}/tmdb` } });
  const list = await service.json<{ tools: { name: string }[] }>("GET", "/v1/tools", { key: tenant.key });
  const names = list.body.tools.map((t) => t.name);
  const trajectories = Array.from({ length: 40 }, (_, i) => ({
    id: `seed-${i}`,
    tools: [names[i % names.length] ?? "", names[(i * 7 + 3) % names.length] ?? "", names[(i * 13 + 5) % names.length] ?? ""],
  }));
  const imported = await service.json("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories } });
  expect(imported.status).toBe(200);
  return { ...tenant, names };
}

describe("stored routing state", () => {
  it("loads the stored index and graph to the answers of a fresh build, and rebuilds once after a format change", async () => {
    const tenant = await setUp("persist-co");
    const stub = await stubOf(tenant.id);
    const previous = tenant.names[0] ?? "";
    const fresh = await answers(tenant.key, previous);
    expect(await stub.routingLoadReport()).toEqual({ index: "rebuilt", graph: "rebuilt", dataFlow: "computed" });

    await stub.simulateEviction();
    expect(await stub.routingLoadReport()).toEqual({ index: "stored", graph: "stored", dataFlow: "not loaded" });
    expect(await answers(tenant.key, previous)).toEqual(fresh);
    expect((await stub.routingLoadReport()).dataFlow).toBe("stored");

    // A release with another format finds values it cannot read: rebuilt once, then stored again.
    await stub.simulateEviction({ olderFormats: true });
    expect(await stub.routingLoadReport()).toEqual({ index: "rebuilt", graph: "rebuilt", dataFlow: "not loaded" });
    expect(await answers(tenant.key, previous)).toEqual(fresh);
    expect((await stub.routingLoadReport()).dataFlow).toBe("computed");
    await stub.simulateEviction();
    expect(await stub.routingLoadReport()).toEqual({ index: "stored", graph: "stored", dataFlow: "not loaded" });
    expect(await answers(tenant.key, previous)).toEqual(fresh);
    expect((await stub.routingLoadReport()).dataFlow).toBe("stored");
  });

  it("computes data-flow links once per catalog change, reads them back after an eviction, and never uses a stale one", async () => {
    const tenant = await setUp("flow-co");
    const stub = await stubOf(tenant.id);
    const task = "Which awards has Sofia Coppola won?";
    const later = async (): Promise<{ name: string; why?: { dataFlow?: unknown } }[]> => {
      const res = await service.json<{ candidates: { name: string; why?: { dataFlow?: unknown } }[] }>("POST", "/v1/route", {
        key: tenant.key,
        body: { task, previousTool: "getSearchPerson", k: 20 },
      });
      expect(res.status).toBe(200);
      return res.body.candidates;
    };
    const before = await later();
    expect(before.find((c) => c.name === "getPersonPersonIdMovieCredits")?.why?.dataFlow).toEqual({
      from: "getSearchPerson",
      field: "results[].id",
      parameter: "person_id",
    });
    expect((await stub.routingLoadReport()).dataFlow).toBe("computed");
    await stub.simulateEviction();
    expect(await later()).toEqual(before);
    expect((await stub.routingLoadReport()).dataFlow).toBe("stored");

    // A new consumer of a person's id: linked from the person search at once, and after an eviction.
    const awards = { name: "getPersonAwards", method: "GET", url: `${WORLD_ORIGIN}/tmdb/person/{person_id}/awards`, description: "Awards a person won." };
    expect((await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools: [awards] } })).status).toBe(200);
    const link = { from: "getSearchPerson", field: "results[].id", parameter: "person_id" };
    expect((await later()).find((c) => c.name === "getPersonAwards")?.why?.dataFlow).toEqual(link);
    expect((await stub.routingLoadReport()).dataFlow).toBe("computed");
    await stub.simulateEviction();
    const reloaded = await later();
    expect(reloaded.find((c) => c.name === "getPersonAwards")?.why?.dataFlow).toEqual(link);
    expect((await stub.routingLoadReport()).dataFlow).toBe("stored");

    // Changed while the object is not loaded, the number of tools the same: the stored links are
    // dropped with the change, so the link into the old definition's person_id is never read back.
    await stub.simulateEviction();
    const recent = { ...awards, url: `${WORLD_ORIGIN}/tmdb/awards/recent`, description: "Awards given this year." };
    const changed = await service.json<{ updated: string[] }>("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", tools: [recent] } });
    expect(changed.body.updated).toEqual(["getPersonAwards"]);
    expect((await later()).find((c) => c.name === "getPersonAwards")?.why?.dataFlow).toBeUndefined();
    expect((await stub.routingLoadReport()).dataFlow).toBe("computed");

    // Removed while the object is not loaded: the stored links are dropped with it, not read back.
    await stub.simulateEviction();
    const removed = await service.fetch("/v1/tools/getPersonAwards", { method: "DELETE", headers: { authorization: `Bearer ${tenant.key}` } });
    expect(removed.status).toBeLessThan(300);
    expect((await later()).map((c) => c.name)).not.toContain("getPersonAwards");
    expect((await stub.routingLoadReport()).dataFlow).toBe("computed");
    expect(await later()).toEqual(before);
  });

  it("applies tool changes made after the index was stored, as a rebuild would", async () => {
    const tenant = await setUp("changes-co");
    const stub = await stubOf(tenant.id);
    const previous = tenant.names[1] ?? "";
    await answers(tenant.key, previous); // loads (and stores) the state
    const added = await service.json("POST", "/v1/tools/import", {
      key: tenant.key,
      body: {
        format: "list",
        tools: [
          {
            name: "findDirectorOfFilm",
            method: "GET",
            url: "https://api.example.com/director",
            description: "Who directed a movie: the director of a film by title.",
          },
        ],
      },
    });
    expect(added.status).toBe(200);
    const removed = await service.fetch(`/v1/tools/${encodeURIComponent(tenant.names[2] ?? "")}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${tenant.key}` },
    });
    expect(removed.status).toBeLessThan(300);
    const live = await answers(tenant.key, previous);
    expect(JSON.stringify(live)).toContain("findDirectorOfFilm");
    expect(JSON.stringify(live)).not.toContain(`"${tenant.names[2]}"`);

    await stub.simulateEviction();
    const report = await stub.routingLoadReport();
    expect(report.index).toBe("stored+pending");
    // The set of tools changed: a change no longer rewrites the graph's edges, the change's
    // preparation does (issue 42). Evicted before it (1 s after the change), they are rebuilt from the rows.
    expect(["stored", "rebuilt"]).toContain(report.graph);
    // The changes rewrote the stored values' tool-names version: nothing was checked name by name
    // (a graph rebuilt from the rows reads the names it is made of).
    expect(await stub.routingColdReads()).toMatchObject({ namesRead: report.graph === "rebuilt", nameChecks: 0 });
    const loaded = await answers(tenant.key, previous);
    await stub.simulateEviction({ olderFormats: true });
    // Past the preparation's delay: unheld, the alarm could have stored a fresh index by now.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await stub.routingLoadReport()).index).toBe("rebuilt");
    const rebuilt = await answers(tenant.key, previous);
    expect(loaded).toEqual(rebuilt);
    expect(live).toEqual(rebuilt);
  });

  it("reads no tool's name on a cold first step: the stored index and graph carry the tool-names version they were made at", async () => {
    const tenant = await setUp("names-co");
    const stub = await stubOf(tenant.id);
    const previous = tenant.names[3] ?? "";
    const before = await answers(tenant.key, previous); // loads (and stores) the state
    await stub.simulateEviction();
    const first = await service.json("POST", "/v1/route", { key: tenant.key, body: { task: TASKS[1], k: 5 } });
    expect(first.status).toBe(200);
    expect(await stub.routingLoadReport()).toMatchObject({ index: "stored", graph: "stored" });
    expect(await stub.routingColdReads()).toMatchObject({ namesRead: false, nameChecks: 0, countReads: 0, countRanges: 0 });
    expect(await answers(tenant.key, previous)).toEqual(before);
  });

  it("makes on a cold first step only the graph nodes it reads, and answers as before the eviction", async () => {
    const tenant = await setUp("nodes-co");
    const stub = await stubOf(tenant.id);
    const previous = tenant.names[3] ?? "";
    // The graph was stored before setUp's trajectories, which a load counts on top (touching their
    // tools' nodes): an older format makes the next load rebuild it and store it with them all.
    await stub.simulateEviction({ olderFormats: true });
    const before = await answers(tenant.key, previous);
    await stub.simulateEviction();
    const first = await service.json("POST", "/v1/route", { key: tenant.key, body: { task: TASKS[1], k: 5 } });
    expect(first.status).toBe(200);
    expect(await stub.routingLoadReport()).toMatchObject({ graph: "stored" });
    // 54 tools: the first step reads a few nodes (the answer's), not every tool's.
    expect((await stub.routingColdReads()).graphNodes).toBeLessThan(10);
    expect(await answers(tenant.key, previous)).toEqual(before);
  });

  it("reads after an eviction a repeated word's raw term counts alone, all of them only for a change, and answers as a rebuild", async () => {
    const tenant = await setUp("counts-co");
    const stub = await stubOf(tenant.id);
    // A task that repeats a word: its weight is computed from the raw counts, as MiniSearch does.
    const tasks = ["Who directed the movie Inception?", "movie reviews: the reviews critics wrote of a movie"];
    const firstSteps = () => firstStepsOf(tenant.key, tasks, 8);
    const before = await firstSteps(); // loads (and stores) the state
    await stub.simulateEviction();
    const after = await firstSteps();
    expect(after).toEqual(before);
    const repeated = await stub.routingColdReads();
    expect(repeated.countReads).toBe(0);
    expect(repeated.countRanges).toBeGreaterThan(0);
    await stub.simulateEviction();
    const first = await service.json("POST", "/v1/route", { key: tenant.key, body: { task: tasks[0], k: 8 } });
    expect(first.status).toBe(200);
    expect((await stub.routingColdReads()).countReads).toBe(0);
    // A change merged into the loaded index needs them: read once, and what is stored again answers as a rebuild.
    const added = await importList(tenant.key, "more", [
      { name: "filmCritics", method: "GET", url: "https://api.example.com/critics", description: "Movie reviews by film critics" },
    ]);
    expect(added.status).toBe(200);
    const changed = await firstSteps();
    expect((await stub.routingColdReads()).countReads).toBe(1);
    expect(JSON.stringify(changed)).toContain("filmCritics");
    await stub.simulateEviction();
    expect(await firstSteps()).toEqual(changed);
    await stub.simulateEviction({ olderFormats: true });
    expect(await firstSteps()).toEqual(changed);
    expect((await stub.routingLoadReport()).index).toBe("rebuilt");
  });

  it("sees a tool row written behind routing's back after the next eviction: a stale tool-names version is never trusted", async () => {
    const tenant = await setUp("unnoticed-co");
    const stub = await stubOf(tenant.id);
    const top = async () => {
      const res = await service.json<{ candidates: { name: string }[] }>("POST", "/v1/route", { key: tenant.key, body: { task: TASKS[0], k: 10 } });
      expect(res.status).toBe(200);
      return res.body.candidates.map((c) => c.name);
    };
    const [best] = await top(); // loads (and stores) the state
    expect(best).toBeDefined();
    await stub.deleteToolRowUnnoticed(best ?? "");
    await stub.simulateEviction();
    expect(await top()).not.toContain(best);
    // The stored values' version was not current: both were checked name by name, found stale and rebuilt.
    expect(await stub.routingLoadReport()).toMatchObject({ index: "rebuilt", graph: "rebuilt" });
    expect((await stub.routingColdReads()).nameChecks).toBe(2);
    const rebuilt = await answers(tenant.key, tenant.names.find((name) => name !== best) ?? "");
    await stub.simulateEviction({ olderFormats: true });
    expect(await answers(tenant.key, tenant.names.find((name) => name !== best) ?? "")).toEqual(rebuilt);
  });

  it("never ranks by a stored document older than the tool: a changed tool's new text counts after an eviction", async () => {
    const tenant = await createTenant(service, "changed-text-co");
    const stub = await stubOf(tenant.id);
    const tool = (description: string) => ({ name: "oddTool", method: "GET", url: "https://odd.example.com/thing", description });
    const others = Array.from({ length: 12 }, (_, i) => ({
      name: `other${i}`,
      method: "GET",
      url: `https://other${i}.example.com/x`,
      description: `Ordinary operation ${i} about lists and items`,
    }));
    const register = async (description: string) =>
      expect(
        (await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", source: "odd", tools: [tool(description), ...others] } }))
          .status,
      ).toBe(200);
    // The best tool, and whether it matched the task's words (no fallback stood in).
    const best = async (task: string) => {
      const res = await service.json<{ candidates: { name: string }[]; fallback?: unknown }>("POST", "/v1/route", { key: tenant.key, body: { task, k: 3 } });
      return { name: res.body.candidates[0]?.name, matched: res.body.fallback === undefined };
    };
    await register("Counts zebras crossing the savanna");
    expect(await best("count the zebras")).toEqual({ name: "oddTool", matched: true });
    await stub.simulateEviction();
    expect(await best("count the zebras")).toEqual({ name: "oddTool", matched: true }); // the stored index is current and read back
    expect((await stub.routingLoadReport()).index).toBe("stored");
    await register("Measures glacier melting in the arctic");
    await stub.simulateEviction();
    expect(await best("how fast is the glacier melting")).toEqual({ name: "oddTool", matched: true });
    expect((await best("count the zebras")).matched).toBe(false);
  });

  // Hundreds of concurrent writes, evictions and routes: over 30 s on a loaded 2-core machine (5 s alone).
  it("loses nothing when the object is evicted while trajectories and tools are being written", async () => {
    const tenant = await setUp("evict-co");
    const stub = await stubOf(tenant.id);
    const { names } = tenant;
    // More trajectories than MAX_PENDING_TRAJECTORIES, so stored edges are also rewritten on the way.
    const writes: Promise<unknown>[] = [];
    for (let batch = 0; batch < 30; batch += 1) {
      const trajectories = Array.from({ length: 20 }, (_, i) => {
        const n = batch * 20 + i;
        return { id: `run-${n}`, tools: [names[n % names.length] ?? "", names[(n * 11 + 1) % names.length] ?? ""] };
      });
      writes.push(service.json("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories } }));
      if (batch % 5 === 0) {
        writes.push(
          service.json("POST", "/v1/tools/import", {
            key: tenant.key,
            body: { format: "list", tools: [{ name: `extra${batch}`, method: "GET", url: `https://api.example.com/extra/${batch}` }] },
          }),
        );
      }
      if (batch % 3 === 0) writes.push(stub.simulateEviction());
      if (batch % 4 === 0) writes.push(service.json("POST", "/v1/route", { key: tenant.key, body: { task: "movie credits", k: 5, previousTool: names[0] } }));
      // Single feedback updates wait for a shared flush (feedback-coalescer.ts): evictions land between.
      for (let i = 0; i < 3; i += 1) writes.push(service.json("POST", "/v1/feedback", { key: tenant.key, body: { tools: [names[1] ?? ""], scores: [1] } }));
    }
    const results = await Promise.all(writes);
    for (const result of results) if (result !== undefined) expect((result as { status: number }).status).toBe(200);
    const scored = await service.json<{ nodes: { tool: string; score: number }[] }>("GET", "/v1/graph", { key: tenant.key });
    expect(scored.body.nodes.find((n) => n.tool === names[1])?.score).toBe(90);

    const previous = names[3] ?? "";
    const live = await service.json<{ trajectories: unknown[]; edges: unknown[] }>("GET", "/v1/graph", { key: tenant.key });
    const liveAnswers = await answers(tenant.key, previous);
    expect(live.body.trajectories).toHaveLength(40 + 600);
    await stub.simulateEviction();
    const stored = await service.json("GET", "/v1/graph", { key: tenant.key });
    expect(await answers(tenant.key, previous)).toEqual(liveAnswers);
    await stub.simulateEviction({ olderFormats: true });
    const rebuilt = await service.json("GET", "/v1/graph", { key: tenant.key });
    expect(stored.body).toEqual(live.body);
    expect(rebuilt.body).toEqual(live.body);
    expect(await answers(tenant.key, previous)).toEqual(liveAnswers);
  }, 90_000);

  it("reads after an eviction the APIs of the tools a first step ranks only, and ranks as with every tool's APIs", async () => {
    const tenant = await createTenant(service, "apis-co");
    const stub = await stubOf(tenant.id);
    const tool = (api: string, name: string, description: string) => ({ name, method: "GET", url: `https://${api}.example.com/${name}`, description });
    // Small APIs (their operations back each other), one too big to narrow anything (26 tools), and a lone tool.
    const tools = [
      tool("weather", "forecastToday", "Weather forecast for a city today: rain, wind and temperature"),
      tool("weather", "forecastWeek", "Weather forecast for the next seven days in a city"),
      tool("weather", "rainRadar", "Rain radar picture of a region"),
      tool("movies", "movieByTitle", "Find a movie by its title"),
      tool("movies", "movieCast", "The cast of a movie: actors and their roles"),
      tool("movies", "movieReviews", "Reviews of a movie by critics"),
      ...Array.from({ length: 26 }, (_, i) => tool("giant", `giantOperation${i}`, `Operation ${i} of a giant API: city weather, movie ${i} and more`)),
      tool("lone", "cityTemperature", "Temperature in a city right now"),
    ];
    expect((await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", source: "apis", tools } })).status).toBe(200);
    const tasks = ["weather forecast in Paris this week", "who plays in the movie Alien and what did critics say", "temperature in the city"];
    const firstSteps = () => firstStepsOf(tenant.key, tasks, 6);
    await firstSteps();
    // A change while the state is loaded re-indexes the APIs it touches, read per API (apis-reindex-co tests that).
    const extra = tool("lone2", "moonPhase", "Phase of the moon");
    expect((await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", source: "apis", tools: [extra] } })).status).toBe(200);
    const withEveryApi = await firstSteps();

    await stub.simulateEviction();
    expect(await firstSteps()).toEqual(withEveryApi);
    // Only the ranked tools' siblings were read: every tool's server (the families) was not.
    expect((await stub.routingLoadedParts()).apis).toBe(false);
  });

  it("re-indexes on each change while loaded only the APIs it touches, without every tool's API rows, as a rebuild would", async () => {
    const tenant = await createTenant(service, "apis-reindex-co");
    const stub = await stubOf(tenant.id);
    const tool = (api: string, name: string, description: string, summary?: string) => ({
      name,
      method: "GET",
      url: `https://${api}.example.com/${name}`,
      description,
      ...(summary === undefined ? {} : { summary }),
    });
    const giant = (i: number) => tool("giant", `giantOperation${i}`, `Operation ${i} of a giant API: city weather, movie ${i} and more`);
    const tools = [
      tool("weather", "forecastToday", "Weather forecast for a city today: rain, wind and temperature", "Today's forecast"),
      tool("weather", "forecastWeek", "Weather forecast for the next seven days in a city", "Week forecast"),
      tool("weather", "rainRadar", "Rain radar picture of a region", "Rain radar"),
      tool("movies", "movieByTitle", "Find a movie by its title", "Movie by title"),
      tool("movies", "movieCast", "The cast of a movie: actors and their roles", "Movie cast"),
      tool("movies", "movieReviews", "Reviews of a movie by critics", "Movie reviews"),
      // One too big to narrow anything (26 tools) until one of its operations is removed.
      ...Array.from({ length: 26 }, (_, i) => giant(i)),
      tool("lone", "cityTemperature", "Temperature in a city right now"),
    ];
    const write = async (changed: unknown[]) => {
      const res = await service.json("POST", "/v1/tools/import", { key: tenant.key, body: { format: "list", source: "apis", tools: changed } });
      expect(res.status).toBe(200);
    };
    await write(tools);
    const tasks = [
      "weather forecast in Paris this week",
      "who plays in the movie Alien and what did critics say",
      "temperature in the city",
      "radar of the rain",
      "giant operation for a movie",
    ];
    const firstSteps = () => firstStepsOf(tenant.key, tasks, 8);
    await firstSteps();
    expect((await stub.routingLoadedParts()).index).toBe(true);
    // Changes of every kind while the state is loaded: a new operation, a changed summary, a tool
    // moved to another API, removals (one leaves the giant API small enough to list its siblings).
    const changes = [
      () => write([tool("weather", "uvIndex", "Ultraviolet index for a city today", "UV index")]),
      () => write([tool("weather", "rainRadar", "Rain radar picture of a region", "Radar of the rain and the clouds")]),
      () => write([tool("weather", "movieCast", "The cast of a movie: actors and their roles", "Movie cast")]),
      async () => expect((await service.json("DELETE", "/v1/tools/movieReviews", { key: tenant.key })).status).toBe(204),
      async () => expect((await service.json("DELETE", "/v1/tools/giantOperation0", { key: tenant.key })).status).toBe(204),
    ];
    for (const change of changes) {
      await change();
      // Every tool's server and summary (the families) were not read for the change.
      expect((await stub.routingLoadedParts()).apis).toBe(false);
    }
    const live = await firstSteps();

    // A rebuild from the rows makes every document again: the re-indexed ones are the same.
    await stub.simulateEviction({ olderFormats: true });
    expect(await firstSteps()).toEqual(live);
    expect((await stub.routingLoadReport()).index).toBe("rebuilt");
  });

  it("builds the task memory at load from the trajectories that have a task, without reading the others", async () => {
    const tenant = await setUp("task-rows-co");
    const stub = await stubOf(tenant.id);
    const { names } = tenant;
    const withTasks = TASKS.slice(0, 3).map((task, i) => ({ id: `task-${i}`, task, tools: [names[i] ?? "", names[i + 1] ?? ""] }));
    expect((await service.json("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories: withTasks } })).status).toBe(200);
    // setUp stored 40 trajectories without a task: a scan of the table reads them too (43 rows);
    // through the index, each task is read twice (its index entry and its row).
    const rows = await stub.taskMemoryRows();
    expect(rows.tasks).toBe(3);
    expect(rows.rowsRead).toBeLessThanOrEqual(2 * rows.tasks);
  });

  it("loads after an eviction only what a request needs, and later steps answer as before the eviction", async () => {
    const tenant = await setUp("lazy-co");
    const stub = await stubOf(tenant.id);
    const { names } = tenant;
    // Tasks with their trajectories, so the first step's task memory has something to say.
    const withTasks = TASKS.slice(0, 5).map((task, i) => ({ id: `task-${i}`, task, tools: [names[i * 3] ?? "", names[i * 3 + 1] ?? ""] }));
    expect((await service.json("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories: withTasks } })).status).toBe(200);
    const previous = names[3] ?? "";
    const before = await answers(tenant.key, previous);

    await stub.simulateEviction();
    expect(await stub.routingLoadedParts()).toEqual({ loaded: false, index: false, memory: false, apis: false, definitions: 0 });
    const graphStep = await service.json<{ candidates: unknown[] }>("POST", "/v1/route", {
      key: tenant.key,
      body: { task: TASKS[0], k: 4, previousTool: previous, mode: "graph" },
    });
    expect(graphStep.status).toBe(200);
    // The graph step parsed no definition (the shown tools' views and one-line descriptions are
    // stored) and loaded neither the index nor the task memory.
    expect(await stub.routingLoadedParts()).toEqual({ loaded: true, index: false, memory: false, apis: false, definitions: 0 });
    expect(await answers(tenant.key, previous)).toEqual(before);

    await stub.simulateEviction();
    const fed = await service.json("POST", "/v1/feedback", { key: tenant.key, body: { tools: [previous], scores: [1] } });
    expect(fed.status).toBe(200);
    expect(await stub.routingLoadedParts()).toEqual({ loaded: true, index: false, memory: false, apis: false, definitions: 0 });

    // A fused later step ranks by the task's words without API evidence: it reads no tool's API.
    await stub.simulateEviction();
    const later = await service.json("POST", "/v1/route", { key: tenant.key, body: { task: TASKS[1], k: 4, previousTool: previous } });
    expect(later.status).toBe(200);
    expect(await stub.routingLoadedParts()).toMatchObject({ index: true, apis: false });
    const first = await service.json("POST", "/v1/route", { key: tenant.key, body: { task: TASKS[2], k: 4 } });
    expect(first.status).toBe(200);
    // A first step weighs API evidence from the siblings of the tools it ranks, read for them alone.
    expect((await stub.routingLoadedParts()).apis).toBe(false);
    await stub.simulateEviction();

    // A tool and a task arrive while the index and the memory are not loaded: the first step that needs them sees both.
    const added = await importList(tenant.key, "later", [
      { name: "lunarPhase", method: "GET", url: "https://api.example.com/moon/phase", description: "Phase of the moon on a date" },
    ]);
    expect(added.status).toBe(200);
    const lateTask = { id: "task-late", task: "phase of the moon tonight", tools: ["lunarPhase"] };
    expect((await service.json("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories: [lateTask] } })).status).toBe(200);
    expect((await stub.routingLoadedParts()).memory).toBe(false);
    const moon = await service.json<{ candidates: { name: string; why: { history?: unknown } }[] }>("POST", "/v1/route", {
      key: tenant.key,
      body: { task: "what phase is the moon in", k: 3 },
    });
    expect(moon.body.candidates[0]?.name).toBe("lunarPhase");
    expect(moon.body.candidates[0]?.why.history).toBeDefined();
    const after = await answers(tenant.key, previous);
    await stub.simulateEviction({ olderFormats: true });
    expect(await answers(tenant.key, previous)).toEqual(after);
  });
});
