import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";
import { calibrated, taughtTenant } from "../helpers/calibration";
import { createTenant, startService, type TestService } from "../helpers/service";

/**
 * How a tenant's conversations usually start is a calibrated signal of the first step
 * (first-step-prior.ts, routing-calibration.ts): a gateway tool the dialogue picks (a tool search)
 * starts most conversations while sharing no word with their requests, so the words, the learned
 * field and similar tasks' votes never offer it. Each remembered task is replayed with its own
 * start left out; a tenant whose replay shows the usual starts pushing the right tool out gets
 * them muted.
 */

const tool = (name: string, description: string) => ({ name, method: "GET", url: `https://${name.toLowerCase()}.example.com/run`, description });

// Each request is one word no other request shares (so no similar task votes, and no learned
// word of another request matches it); every errand tool's text holds all of them, so the words
// alone rank eight errand tools for any request and never the gateway.
const ANIMALS = ["walrus", "otter", "badger", "heron", "lynx", "moose", "ferret", "gecko", "ibis", "jackal"];
const ANIMALS_TOO = ["koala", "lemur", "marmot", "newt", "ocelot", "panda", "quokka", "raven", "sloth", "tapir"];
const NEW_REQUEST = "penguin";
const ERRANDS = ["feed", "wash", "weigh", "count", "tag", "photograph", "vaccinate", "move"];
const errandTools = ERRANDS.map((errand) => tool(`${errand}Animal`, `${errand} ${[...ANIMALS, ...ANIMALS_TOO, NEW_REQUEST].join(" ")}`));
const gateway = tool("findTool", "Search the catalog for the right tool.");

let service: TestService;
// Starting workerd passes the default minute on a loaded shared machine.
beforeAll(async () => {
  service = await startService();
}, 180_000);
afterAll(async () => service.dispose());

const firstFive = async (key: string, task: string): Promise<RouteAnswer["candidates"]> =>
  (await service.json<RouteAnswer>("POST", "/v1/route", { key, body: { task, k: 5 } })).body.candidates;

/** A tenant with the same tools, taught and calibrated the same, but with the usual starts off (`startsWeight` 0): routing as before them. */
async function startsOff(name: string, tools: object[], tasks: { id: string; task: string; tools: string[] }[]): Promise<string> {
  const { key } = await createTenant(service, name);
  expect((await service.json("POST", "/v1/tools/import", { key, body: { format: "list", tools } })).status).toBe(200);
  expect((await service.json("PUT", "/v1/settings/learning", { key, body: { startsWeight: 0 } })).status).toBe(200);
  expect((await service.json("POST", "/v1/graph/trajectories", { key, body: { trajectories: tasks } })).status).toBe(200);
  expect((await calibrated(service, name, key)).replays.starts.judged).toBe(0);
  return key;
}

describe("a tenant's usual first tools count as much as its own replayed tasks show", () => {
  it("offers the tool most conversations start with at a first step whose words do not name it", async () => {
    // Twenty conversations, each started with the gateway, then an errand.
    const tasks = [...ANIMALS, ...ANIMALS_TOO].map((animal, i) => ({ id: `zoo-${animal}`, task: animal, tools: [gateway.name, `${ERRANDS[i % 8]}Animal`] }));
    const tools = [...errandTools, gateway];
    const taught = await taughtTenant(service, "starts-gateway", tools, tasks);
    const replay = taught.report.replays.starts;
    expect(replay.judged).toBe(tasks.length);
    // With its own start left out, no task's gateway was found without the usual starts.
    expect(replay.hits[0]).toBe(0);
    expect(Math.max(...replay.hits)).toBe(tasks.length);
    expect(taught.report.weights.starts).toBeGreaterThan(0);
    const offered = await firstFive(taught.key, NEW_REQUEST);
    expect(offered.map((c) => c.name)).toContain(gateway.name);
    expect(offered.find((c) => c.name === gateway.name)?.why?.prior).toEqual({ observed: tasks.length });
    // The words' best match still leads.
    expect(offered[0]?.why?.relevance?.rank).toBe(1);
    // The same tenant with the usual starts off is not offered the gateway: the words never name it.
    const offKey = await startsOff("starts-gateway-off", tools, tasks);
    expect((await firstFive(offKey, NEW_REQUEST)).map((c) => c.name)).not.toContain(gateway.name);
  }, 180_000);

  it("mutes them where the replay shows them pushing the right tool out", async () => {
    // Each other request started with the tool its words rank fifth: task t's five words are
    // held, first to fifth best, by errand tools t … t+4 (the first tool holds all five words, the
    // fifth only one), so every tool starts at most two conversations. The help desk starts the
    // other half, and its requests name it: placed among the first 5, it pushes the fifth out.
    const word = (t: number, w: number) =>
      `${["zor", "quam", "blix", "drel", "fosk", "gryn", "hult", "jinx", "kelv", "lumb"][t]}${["ap", "eb", "ig", "od", "uf"][w]}`;
    // How far down task t's ranking errand tool j stands (0: first).
    const place = (j: number, t: number) => (((j - t) % 8) + 8) % 8;
    const holds = (j: number, t: number) => Array.from({ length: Math.max(0, 5 - place(j, t)) }, (_, w) => word(t, w));
    const ranked = ERRANDS.map((errand, j) =>
      tool(
        `${errand}Thing`,
        `${errand} ${Array.from({ length: 10 }, (_, t) => ((j - t + 8) % 8 < 5 ? holds(j, t) : []))
          .flat()
          .join(" ")}`,
      ),
    );
    const desk = tool("helpDesk", "General help desk for questions.");
    const tools = [...ranked, desk];
    const errandTasks = Array.from({ length: 10 }, (_, t) => ({
      id: `fifth-${t}`,
      task: Array.from({ length: 5 }, (_, w) => word(t, w)).join(" "),
      tools: [`${ERRANDS[(t + 4) % 8]}Thing`],
    }));
    const deskTasks = ANIMALS_TOO.map((animal) => ({ id: `desk-${animal}`, task: `general help desk question ${animal}`, tools: [desk.name] }));
    const tasks = [...errandTasks, ...deskTasks];
    const hurt = await taughtTenant(service, "starts-hurt", tools, tasks);
    const replay = hurt.report.replays.starts;
    expect(replay.judged).toBe(tasks.length);
    // Without the usual starts the replay held every task's first tool; at the full weight, the help desk pushed the errands' out.
    expect(replay.hits[0]).toBe(tasks.length);
    expect(replay.hits.at(-1)).toBe(deskTasks.length);
    expect(hurt.report.weights.starts).toBe(0);
    // Muted, routing is as with the usual starts off.
    const offKey = await startsOff("starts-hurt-off", tools, tasks);
    for (const request of [errandTasks[0]?.task ?? "", "general help desk question walrus"]) {
      expect(await firstFive(hurt.key, request)).toEqual(await firstFive(offKey, request));
    }
  }, 180_000);
});
