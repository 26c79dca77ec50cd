import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTenant, startService, WORLD_ORIGIN, type TestService } from "../helpers/service";
import { tenantObject } from "../helpers/tenant-object";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";

const demo = JSON.parse(readFileSync("kv-seed/demo-tenant.json", "utf8")) as {
  imports: { format: "openapi" | "list"; source: string; documentFile?: string; toolsFile?: string; serverUrl?: string }[];
};

/** The README's notes example: five tools, one per verb. */
const notesSpec = {
  openapi: "3.0.3",
  info: { title: "Notes", version: "1" },
  servers: [{ url: "https://notes.example.com" }],
  paths: {
    "/notes": {
      get: { operationId: "listNotes", summary: "List notes", responses: { "200": { description: "ok" } } },
      post: { operationId: "createNote", summary: "Create a note", responses: { "201": { description: "ok" } } },
    },
    "/notes/search": {
      get: {
        operationId: "searchNotes",
        summary: "Search notes by text",
        parameters: [{ name: "q", in: "query", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "ok" } },
      },
    },
    "/notes/{note_id}": {
      put: {
        operationId: "updateNote",
        summary: "Update a note",
        parameters: [{ name: "note_id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "ok" } },
      },
      delete: {
        operationId: "deleteNote",
        summary: "Delete a note",
        parameters: [{ name: "note_id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "204": { description: "ok" } },
      },
    },
  },
};

let service: TestService;
let tenant: { id: string; key: string };
let other: { id: string; key: string };

beforeAll(async () => {
  service = await startService();
  tenant = await createTenant(service, "demo-like");
  other = await createTenant(service, "demo-other");
  for (const t of [tenant, other]) {
    for (const item of demo.imports) {
      const body =
        item.format === "openapi"
          ? { format: "openapi", source: item.source, serverUrl: `${WORLD_ORIGIN}/tmdb`, document: JSON.parse(readFileSync(item.documentFile ?? "", "utf8")) }
          : { format: "list", source: item.source, tools: JSON.parse(readFileSync(item.toolsFile ?? "", "utf8")) };
      const imported = await service.json("POST", "/v1/tools/import", { key: t.key, body });
      expect(imported.status).toBe(200);
    }
  }
});
afterAll(async () => service.dispose());

const route = (key: string, body: Record<string, unknown>) => service.json<RouteAnswer>("POST", "/v1/route", { key, body });

describe("a tenant with tools never gets an empty route answer", () => {
  it("answers the README's first example on the demo tools", async () => {
    const res = await route(tenant.key, { task: "Who directed Inception?", include: ["tools", "prompt"] });
    expect(res.status).toBe(200);
    expect(res.body.candidates.length).toBeGreaterThan(0);
    expect(res.body.tools?.length).toBe(res.body.candidates.length);
    // The prompt block gives the weights; the tools array, in the same order, names the tools.
    expect(res.body.tools?.[0]?.function.name).toBe(res.body.candidates[0]?.name);
    expect(res.body.prompt).toContain(`weights ${res.body.candidates.map((c) => c.weight).join(", ")}.`);
  });

  it("answers the README's first example with the movie tools first: a name alone cannot ask for a TV episode", async () => {
    const res = await route(tenant.key, { task: "Who directed Inception?", k: 5 });
    const names = res.body.candidates.map((c) => c.name);
    expect(names.slice(0, 2)).toEqual(["getMovieMovieIdCredits", "getSearchMovie"]);
    // The episode tools need a season and an episode number the task does not give.
    const episode = names.indexOf("getTvTvIdSeasonSeasonNumberEpisodeEpisodeNumber");
    expect(episode === -1 || episode > 1).toBe(true);
    // With the numbers said, the episode's crew is what is asked for.
    const said = await route(tenant.key, { task: "Who directed season 2 episode 3 of Breaking Bad?", k: 5 });
    expect(said.body.candidates[0]?.name).toBe("getTvTvIdSeasonSeasonNumberEpisodeEpisodeNumber");
  });

  it("offers the name lookup of every offered tool at any k, right after it, and accounts for every ranked tool", async () => {
    const task = "the latest TV series Steven Spielberg produced";
    const answers = new Map<number, RouteAnswer>();
    for (const k of [8, 10, 12]) {
      const res = await route(tenant.key, { task, k });
      expect(res.status).toBe(200);
      answers.set(k, res.body);
      // k tools ranked: each is shown or named over budget, none silently dropped.
      expect(res.body.candidates.length + (res.body.overBudget?.length ?? 0)).toBe(k);
    }
    for (const k of [10, 12]) {
      const candidates = answers.get(k)?.candidates ?? [];
      const names = candidates.map((c) => c.name);
      // The person's TV credits rank below the fifth tool: a fixed five leaders left its lookup out.
      const credits = names.indexOf("getPersonPersonIdTvCredits");
      expect(credits).toBeGreaterThanOrEqual(5);
      expect(names[credits + 1]).toBe("getSearchPerson");
      expect(candidates[credits + 1]?.why?.feeds).toEqual({ to: "getPersonPersonIdTvCredits", field: "results[].id", parameter: "person_id" });
    }
    // Asking for more tools never reorders the ones fewer would show.
    const first = (k: number, n: number) => (answers.get(k)?.candidates ?? []).slice(0, n).map((c) => c.name);
    expect(first(10, 8)).toEqual(first(8, 8));
    expect(first(12, 10)).toEqual(first(10, 10));
  });

  it("falls back, and says so, when no word of the task matches any tool", async () => {
    const fresh = await createTenant(service, "fallback-co");
    await service.json("POST", "/v1/tools/import", { key: fresh.key, body: { format: "openapi", document: notesSpec } });
    const unknown = await route(fresh.key, { task: "Zyxw qwpf", k: 3 });
    expect(unknown.status).toBe(200);
    expect(unknown.body.fallback?.method).toBe("starting-tools");
    expect(unknown.body.candidates).toHaveLength(3);
    // Tools that need no id from another tool come first.
    expect(unknown.body.candidates.map((c) => c.name)).not.toContain("deleteNote");

    const partial = await route(fresh.key, { task: "Searchin", k: 3 });
    expect(partial.body.fallback?.method).toBe("partial-match");
    expect(partial.body.candidates[0]?.name).toBe("searchNotes");

    await service.json("POST", "/v1/graph/trajectories", { key: fresh.key, body: { trajectories: [{ id: "r1", tools: ["createNote"] }] } });
    const learned = await route(fresh.key, { task: "Zyxw qwpf", k: 3 });
    expect(learned.body.fallback?.method).toBe("learned-start");
    expect(learned.body.candidates[0]?.name).toBe("createNote");

    const matched = await route(fresh.key, { task: "create a note" });
    expect(matched.body.fallback).toBeUndefined();
  });

  it("ranks by the tool's verb and summary on a small spec: finding notes is a search, not a delete", async () => {
    const notes = await createTenant(service, "notes-co");
    await service.json("POST", "/v1/tools/import", { key: notes.key, body: { format: "openapi", document: notesSpec } });
    const find = await route(notes.key, { task: "find my notes about taxes", k: 5 });
    const names = find.body.candidates.map((c) => c.name);
    expect(names[0]).toBe("searchNotes");
    expect(names.indexOf("searchNotes")).toBeLessThan(names.indexOf("deleteNote") === -1 ? Infinity : names.indexOf("deleteNote"));
    const remove = await route(notes.key, { task: "remove the note about taxes", k: 5 });
    expect(remove.body.candidates[0]?.name).toBe("deleteNote");
  });
});

describe("fused later steps and first-step learning over HTTP", () => {
  it("offers a data-flow successor never observed after the previous tool, with its why, and Finish", async () => {
    const res = await route(tenant.key, { task: "How many movies has Sofia Coppola directed?", previousTool: "getSearchPerson", k: 5 });
    expect(res.status).toBe(200);
    expect(res.body.via).toBe("fused");
    const credits = res.body.candidates.find((c) => c.name === "getPersonPersonIdMovieCredits");
    expect(credits?.why?.dataFlow).toEqual({ from: "getSearchPerson", field: "results[].id", parameter: "person_id" });
    expect(res.body.candidates[res.body.candidates.length - 1]?.name).toBe("Finish");
    // The paper's eq. 4 format stays available: nothing was learned, so it offers only structural edges.
    const eq4 = await route(tenant.key, { task: "How many movies has Sofia Coppola directed?", previousTool: "getSearchPerson", k: 5, mode: "graph" });
    expect(eq4.body.via).toBe("graph");
    expect(eq4.body.candidates.every((c) => c.why === undefined)).toBe(true);
    expect(eq4.body.candidates.map((c) => c.name)).not.toContain("getPersonPersonIdMovieCredits");
  });

  it("learns which tools start which tasks from trajectories with task texts, for that tenant only", async () => {
    const task = "Which company produced the film Parasite?";
    const before = await route(tenant.key, { task, k: 10 });
    const rankOf = (answer: RouteAnswer, tool: string) => {
      const i = answer.candidates.findIndex((c) => c.name === tool);
      return i === -1 ? Infinity : i;
    };
    const trajectories = [
      { id: "h1", task: "Which company produced the film Memento?", tools: ["getCompanyCompanyId", "getSearchMovie"] },
      { id: "h2", task: "Which company produced the film Amelie?", tools: ["getCompanyCompanyId", "getSearchMovie"] },
    ];
    const imported = await service.json("POST", "/v1/graph/trajectories", { key: tenant.key, body: { trajectories } });
    expect(imported.status).toBe(200);
    const after = await route(tenant.key, { task, k: 10 });
    // The task's best match already leads with no history (it stays first); history confirms it.
    expect(rankOf(after.body, "getCompanyCompanyId")).toBeLessThanOrEqual(rankOf(before.body, "getCompanyCompanyId"));
    expect(rankOf(after.body, "getCompanyCompanyId")).toBe(0);
    expect(after.body.candidates.find((c) => c.name === "getCompanyCompanyId")?.why?.history?.tasks).toBe(2);
    // An unrelated task ranks as before.
    const unrelatedBefore = await route(other.key, { task: "What is the weather in Paris tomorrow?", k: 10 });
    const unrelatedAfter = await route(tenant.key, { task: "What is the weather in Paris tomorrow?", k: 10 });
    expect(unrelatedAfter.body.candidates.map((c) => c.name)).toEqual(unrelatedBefore.body.candidates.map((c) => c.name));
    // The other tenant, same tools, learned nothing.
    const elsewhere = await route(other.key, { task, k: 10 });
    expect(elsewhere.body.candidates.map((c) => c.name)).toEqual(before.body.candidates.map((c) => c.name));
    expect(elsewhere.body.candidates.every((c) => c.why?.history === undefined)).toBe(true);
  });

  it("refuses a trajectory task that is not text, and stores nothing", async () => {
    const before = await service.json("GET", "/v1/graph", { key: other.key });
    const bad = await service.json("POST", "/v1/graph/trajectories", {
      key: other.key,
      body: { trajectories: [{ id: "z", tools: ["getSearchMovie"], task: 42 }] },
    });
    expect(bad.status).toBe(400);
    expect((await service.json("GET", "/v1/graph", { key: other.key })).body).toEqual(before.body);
  });
});

describe("an operation is found by what the other operations of its API do", () => {
  // "Latest" and "Count" say nothing of parcels; the API's history operation does.
  const parcelTools = [
    { name: "colisLatest", method: "GET", url: "https://parcels.example.com/latest", summary: "Latest", description: "L'état courant du colis." },
    { name: "colisCount", method: "GET", url: "https://parcels.example.com/count", summary: "Count", description: "Nombre d'étapes." },
    { name: "cityWeather", method: "GET", url: "https://weather.example.com/now", summary: "Current weather", description: "Temperature and wind in a city." },
  ];
  const history = {
    name: "colisHistory",
    method: "GET",
    url: "https://parcels.example.com/all",
    summary: "Full tracking history of a parcel",
    description: "Every step since it was sent.",
  };
  const task = "parcel tracking";
  /** Whether `colisLatest` is in the answer through task relevance (its own document), not only as a sibling. */
  const latestIsRelevant = async (key: string): Promise<boolean> => {
    const res = await route(key, { task, k: 5 });
    expect(res.status).toBe(200);
    return res.body.candidates.find((c) => c.name === "colisLatest")?.why?.relevance !== undefined;
  };
  const remove = async (key: string, name: string) => {
    const res = await service.fetch(`/v1/tools/${name}`, { method: "DELETE", headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBeLessThan(300);
  };
  const add = async (key: string, tools: unknown[]) =>
    expect((await service.json("POST", "/v1/tools/import", { key, body: { format: "list", tools } })).status).toBe(200);

  it("re-indexes the API's operations when one is added or removed, loaded or not", async () => {
    const fresh = await createTenant(service, "parcels-co");
    const object = await tenantObject(service, fresh.id);
    // The noted changes must still be pending at each load: no preparation may store them first.
    await object.holdRoutingPreparation(true);
    await add(fresh.key, parcelTools);
    expect(await latestIsRelevant(fresh.key)).toBe(false);
    expect((await object.routingLoadReport()).index).toBe("rebuilt");
    // Not loaded: the stored index is brought up to date at the next load…
    await object.simulateEviction();
    await add(fresh.key, [history]);
    expect(await latestIsRelevant(fresh.key)).toBe(true);
    expect((await object.routingLoadReport()).index).toBe("stored+pending");
    await object.simulateEviction();
    await remove(fresh.key, "colisHistory");
    expect(await latestIsRelevant(fresh.key)).toBe(false);
    expect((await object.routingLoadReport()).index).toBe("rebuilt");
    // …and loaded, the new operation's words join its siblings' documents at once, and leave them when it goes.
    await add(fresh.key, [history]);
    expect(await latestIsRelevant(fresh.key)).toBe(true);
    await remove(fresh.key, "colisHistory");
    expect(await latestIsRelevant(fresh.key)).toBe(false);
  });
});
