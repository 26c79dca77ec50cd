import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteAnswer } from "../../functions/routing/tenant-routing";
import { taughtTenant } from "../helpers/calibration";
import { createTenant, startService, type TestService } from "../helpers/service";

/**
 * The learned field is a calibrated signal (routing-calibration.ts): each remembered task is
 * replayed with the field made without that task's own words, at every weight of its grid, and
 * a tenant whose replay shows the field pushing the right tool out gets it muted.
 */

const tool = (name: string, description: string) => ({ name, method: "GET", url: `https://${name.toLowerCase()}.example.com/run`, description });

// Helped: requests that share no word with their tool's own text; the other requests of the same
// kind taught it their words, so the field finds what the words alone do not.
const FRUIT = ["apple", "banana", "cherry", "grape"];
const PARAPHRASE = ["orchard", "tropical", "stone", "vine"];
const fruitTools = [
  ...FRUIT.map((fruit) => tool(`sort${fruit[0]?.toUpperCase()}${fruit.slice(1)}`, `Sort the ${fruit} crates.`)),
  ...["invoice", "payroll", "calendar", "mailbox", "printer", "backup"].map((word) => tool(`${word}Tool`, `Manage the ${word}.`)),
];
const fruitTasks = PARAPHRASE.flatMap((word, i) =>
  ["today", "tomorrow", "tonight", "now"].map((when) => ({
    id: `fruit-${i}-${when}`,
    task: `${word} delivery status ${when}`,
    tools: [fruitTools[i]?.name ?? ""],
  })),
);

// Hurt: each request names its own tool by one rare word, then asks for the ledger summary, a
// second tool's part. The tool learns only its word (attribution gives the ledger part to the
// ledger tool); six lure tools, chosen elsewhere for the ledger words alone, learned those words
// and, with the request's own words left out, outrank its tool: the field pushes it out of the 5.
const WORDS = ["zorbit", "quandle", "frimble", "glorp", "snarkle", "plinth", "wobbet", "trundle"];
const namedTools = [...WORDS, "yonder"].map((word) => tool(`${word}Tool`, `The ${word} service.`));
const LEDGER = "fetch the quarterly ledger summary";
const ledgerTool = tool("ledgerSummary", "Fetch the quarterly ledger summary.");
const lures = ["Aa", "Bb", "Cc", "Dd", "Ee", "Ff"].map((suffix) => tool(`lure${suffix}`, `Archive box ${suffix.toLowerCase()}.`));
const lureTasks = lures.flatMap((lure) => [1, 2, 3].map((n) => ({ id: `lure-${lure.name}-${n}`, task: LEDGER, tools: [lure.name] })));
const namedTasks = WORDS.flatMap((word) =>
  ["first", "second"].map((n) => ({ id: `named-${word}-${n}`, task: `${word} ${n}, then ${LEDGER}`, tools: [`${word}Tool`, ledgerTool.name] })),
);

let service: TestService;
// Starting workerd passes the default minute on a loaded shared machine.
beforeAll(async () => {
  service = await startService();
}, 180_000);
afterAll(async () => service.dispose());

const taught = (name: string, tools: object[], tasks: { id: string; task: string; tools: string[] }[]) => taughtTenant(service, name, tools, tasks);

/** The first 5 of a first step by the tools' own text and learned fields (mode graph: no similar tasks' votes). */
const firstFive = async (key: string, task: string): Promise<string[]> =>
  (await service.json<RouteAnswer>("POST", "/v1/route", { key, body: { task, k: 5, mode: "graph" } })).body.candidates.map((c) => c.name);

describe("the learned field counts as much as the tenant's own replayed tasks show", () => {
  it("keeps the field where it found what the words did not, and mutes it where it pushed the right tool out", async () => {
    const helped = await taught("learned-helped", fruitTools, fruitTasks);
    expect(helped.report.replays.learned.judged).toBe(16);
    // With its own words left out, each task's tool was found by the words its siblings taught.
    expect(helped.report.replays.learned.hits[0]).toBe(0);
    expect(helped.report.weights.learned).toBeGreaterThan(0);
    expect((await firstFive(helped.key, "orchard delivery status next week"))[0]).toBe("sortApple");

    const hurt = await taught("learned-hurt", [...namedTools, ledgerTool, ...lures], [...lureTasks, ...namedTasks]);
    const replay = hurt.report.replays.learned;
    expect(replay.judged).toBe(lureTasks.length + namedTasks.length);
    // The words alone held more of the tasks' tools than the field did at any weight of the grid.
    expect(replay.hits[0]).toBeGreaterThanOrEqual(namedTasks.length);
    for (const hits of replay.hits.slice(1)) expect(hits).toBeLessThan(replay.hits[0] ?? 0);
    expect(hurt.report.weights.learned).toBe(0);
    // Muted, the field is left out of routing: a first step ranks by the tools' own text as with the field off.
    const offKey = (await createTenant(service, "learned-off")).key;
    expect(
      (await service.json("POST", "/v1/tools/import", { key: offKey, body: { format: "list", tools: [...namedTools, ledgerTool, ...lures] } })).status,
    ).toBe(200);
    expect((await service.json("PUT", "/v1/settings/learning", { key: offKey, body: { fieldWeight: 0 } })).status).toBe(200);
    const request = `yonder third, then ${LEDGER}`;
    expect(await firstFive(hurt.key, request)).toEqual(await firstFive(offKey, request));
  }, 180_000);
});
