/**
 * Implicit learning (issue 30): a simulated chatbot replays a seeded, shuffled stream of dev
 * tasks against a fresh tenant through the MCP face with the SDK's own client, one connection per
 * conversation: find_tools, call the gold tools in order (find_tools with previous_tool before
 * each later one), end the session; it never sends feedback. The same stream runs, beside it
 * task by task, on a second fresh tenant with implicit learning off.
 *
 *   npm run bench -- implicit-learning [--skip-build] [--sets=api-bank,stabletoolbench,seal-tools,restbench] [--seed=30] [--limit=N] [--overhead-rounds=300]   (--sets=none: the overhead phase alone)
 *     [--learning=on|off --results=DIR]   one side per process (each its own workerd, so the two
 *                                         sides get two processes' share of a loaded machine); the
 *                                         process that finishes second prints both sides' table;
 *     [--report --results=DIR]            that table from what such runs have kept so far
 *     [--sides=off,today,on]              which tenants replay the stream: learning off; today's
 *                                         learning (similar tasks and transitions, no learned field
 *                                         and no usual starts: `fieldWeight` and `startsWeight` 0);
 *                                         on (with both, issue 45)
 *     [--field-weight=W]                  the learned field's weight on the `on` side (default the product's)
 *     [--starts-weight=W]                 the usual first tools' weight on the `on` side (default the
 *                                         product's; `today` has them off: they came with the field)
 *     [--careless=0.25]                   a careless chatbot: that share of conversations (seeded)
 *                                         calls another offered tool first instead of the gold one
 *     [--half=a|b]                        only the tasks of one half (split by a hash of the task's
 *                                         text): constants are chosen on a and reported on b
 *     [--profile]                         the cost of recording and learning: each conversation under a
 *                                         V8 CPU profile of the isolate (the sides one after another,
 *                                         so that each profile holds one tenant's work), split into
 *                                         recording, learning, calibration, route and the rest
 *                                         (bench/lib/conversation-cost.ts); p50 / p99 / mean per side
 *
 * Figures per window of the stream (the first 50 tasks, then the tasks after 50, 200, 500, 1,000
 * and 1,500 conversations up to the next mark), on tasks the tenant has not
 * seen: first-step recall@5 (the first gold tool among the 5 candidates find_tools offers) and
 * later-step hit@5 (the next gold tool among 5 candidates after the previous gold tool), with
 * learning on and off. Overhead: call_tool latency p50 with recording against without (learning
 * off), interleaved in the same run. Data: ../shared/data (or $ATC_DATA); RestBench's 54-tool
 * catalog and 100 tasks are the held-out small catalog (no set here was used to tune anything).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ToolDefinition } from "../functions/tools/definition";
import { connectMcp } from "../test/helpers/mcp-client";
import { createTenant, type TestService } from "../test/helpers/service";
import { startBenchService } from "./lib/bench-service";
import { type ConversationCost, costLines, profiledEach } from "./lib/conversation-cost";
import { freePort } from "./lib/free-port";
import { type Inspector, serviceInspector } from "./lib/inspector";
import { DATASETS, type Dataset, restBench, type Task } from "./lib/implicit-learning-datasets";
import { machineLine, ms, seededRandom, shuffle, summary, table } from "./lib/stats";

const K = 5;

/**
 * An MCP request's timeout: the first search of a big catalog on a loaded machine (Seal-Tools'
 * 4,076 tools, three tenants in one workerd) passes the SDK's default minute.
 */
const MCP_TIMEOUT = { timeout: 600_000 };

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((a) => a.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

/** Arguments that pass validation: a placeholder of the right type for every required parameter. */
function placeholderArguments(def: ToolDefinition | undefined): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const p of def?.parameters ?? []) {
    if (!p.required) continue;
    const schema = p.schema as { type?: string; enum?: unknown[]; default?: unknown };
    const byType: Record<string, unknown> = { integer: 1, number: 1, boolean: true, array: [], object: {} };
    args[p.name] = schema.default ?? schema.enum?.[0] ?? byType[schema.type ?? ""] ?? "x";
  }
  return args;
}

interface Conversation {
  firstHit: boolean;
  /** The first step's offered tools, best first (kept with `--results`, to see which requests a change won or lost). */
  firstOffered?: string[];
  laterHits: boolean[];
  callMs: number[];
  /** Where a conversation's time goes: connecting (initialize), each find_tools, ending the session (learning happens there). */
  connectMs: number;
  findMs: number[];
  endMs: number;
  /** With `--profile`: the isolate's CPU over the conversation, by part (bench/lib/conversation-cost.ts). */
  cost?: ConversationCost;
}

async function findTools(client: Client, task: string, previous: string | null): Promise<string[]> {
  const answer = CallToolResultSchema.parse(
    await client.callTool(
      { name: "find_tools", arguments: { task, k: K, ...(previous === null ? {} : { previous_tool: previous }) } },
      CallToolResultSchema,
      MCP_TIMEOUT,
    ),
  );
  return ((answer.structuredContent as { candidates?: { name: string }[] } | undefined)?.candidates ?? []).map((c) => c.name);
}

/** One conversation of the simulated chatbot: search, call the gold tools in order, end the session. */
async function converse(service: TestService, key: string, task: Task, defs: ReadonlyMap<string, ToolDefinition>, careless = false): Promise<Conversation> {
  const started = performance.now();
  const client = await connectMcp(service, key);
  const result: Conversation = { firstHit: false, laterHits: [], callMs: [], connectMs: performance.now() - started, findMs: [], endMs: 0 };
  try {
    let previous: string | null = null;
    for (const [step, tool] of task.gold.entries()) {
      const searched = performance.now();
      const offered = (await findTools(client, task.text, previous)).slice(0, K);
      result.findMs.push(performance.now() - searched);
      if (step === 0) {
        result.firstHit = offered.includes(tool);
        result.firstOffered = offered;
      } else result.laterHits.push(offered.includes(tool));
      // A careless chatbot starts with another offered tool (the first that is not the gold one).
      const called = careless && step === 0 ? (offered.find((name) => name !== tool) ?? tool) : tool;
      const t0 = performance.now();
      await client.callTool(
        { name: "call_tool", arguments: { name: called, arguments: placeholderArguments(defs.get(called)) } },
        CallToolResultSchema,
        MCP_TIMEOUT,
      );
      result.callMs.push(performance.now() - t0);
      previous = tool;
    }
    const ending = performance.now();
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    result.endMs = performance.now() - ending;
  } finally {
    await client.close();
  }
  return result;
}

async function freshTenant(
  service: TestService,
  id: string,
  dataset: Dataset,
  implicit: boolean,
  fieldWeight?: number,
  startsWeight?: number,
): Promise<string> {
  const { key } = await createTenant(service, id);
  for (const body of dataset.imports) {
    const answer = await service.json("POST", "/v1/tools/import", { key, body });
    if (answer.status !== 200) throw new Error(`${id}: tool import answered ${answer.status}`);
  }
  const settings = await service.json("PUT", "/v1/settings/learning", {
    key,
    body: { implicit, ...(fieldWeight === undefined ? {} : { fieldWeight }), ...(startsWeight === undefined ? {} : { startsWeight }) },
  });
  if (settings.status !== 200) throw new Error(`${id}: learning settings answered ${settings.status}`);
  // The replay runs as fast as the machine allows; on a quiet one it passes the default rates
  // (session ends count as writes, 10/s), which a real chatbot's pace does not.
  const fast = { perSecond: 10_000, burst: 100_000 };
  const quotas = await service.json("PUT", "/v1/settings/quotas", { key, body: { rates: { reads: fast, writes: fast, routing: fast, toolCalls: fast } } });
  if (quotas.status !== 200) throw new Error(`${id}: quota settings answered ${quotas.status}`);
  // The routing state is built before the stream (a route over HTTP teaches nothing), not inside its first conversation.
  const warm = await service.json("POST", "/v1/route", { key, body: { task: "warm up", k: 1 } });
  if (warm.status !== 200) throw new Error(`${id}: warm-up route answered ${warm.status}`);
  return key;
}

/** The stream's marks: its windows are the tasks after each mark up to the next (after 200 conversations: 201–500). */
const MARKS = [50, 200, 500, 1000, 1500];

/** Windows of the stream: the first 50 tasks, then the tasks after 50, 200, 500, 1,000 and 1,500 conversations, up to the next mark or the end. */
function windows(length: number): [number, number][] {
  const bounds = [0, ...MARKS.filter((mark) => mark < length), length];
  return bounds.slice(1).map((to, i) => [bounds[i] ?? 0, to]);
}

/**
 * Per task of the stream: whether an earlier task started with the same tool. What similar past
 * tasks can teach the first step is bounded by it (a first tool nobody used yet has no history).
 */
function firstToolSeenBefore(stream: readonly Task[]): boolean[] {
  const seen = new Set<string>();
  return stream.map((task) => {
    const [first] = task.gold;
    const before = first !== undefined && seen.has(first);
    if (first !== undefined) seen.add(first);
    return before;
  });
}

/**
 * Per task: whether learning could find its first tool at all. Learning only lifts tools earlier
 * conversations used (a vote, a transition, a learned word: a later tool of a request learns its
 * part too), so a first tool no earlier task used at any step is found only if the words alone
 * find it (the side with learning off, `offHits`).
 */
function reachableByLearning(stream: readonly Task[], offHits: readonly boolean[]): boolean[] {
  const used = new Set<string>();
  return stream.map((task, i) => {
    const [first] = task.gold;
    const reachable = (first !== undefined && used.has(first)) || offHits[i] === true;
    for (const tool of task.gold) used.add(tool);
    return reachable;
  });
}

const share = (values: readonly boolean[]): string => (values.length === 0 ? "–" : (values.filter(Boolean).length / values.length).toFixed(3));

/** The tenants replaying a stream: learning off, today's learning (no learned field), and on (with it). */
type Side = "on" | "off" | "today";
const SIDES: readonly Side[] = ["off", "today", "on"];

/** The sides this process replays: `--sides=…`, or `--learning=on|off` (one side), or on and off. */
function chosenSides(): Side[] {
  const listed = option("sides", "");
  if (listed !== "") return SIDES.filter((side) => listed.split(",").includes(side));
  const learning = option("learning", "both");
  return learning === "on" || learning === "off" || learning === "today" ? [learning] : ["on", "off"];
}

/** The field weight each side's tenant gets (undefined: the product's default). */
function fieldWeightOf(side: Side): number | undefined {
  if (side === "today") return 0;
  const given = option("field-weight", "");
  return side === "on" && given !== "" ? Number(given) : undefined;
}

/** The usual starts' weight each side's tenant gets: off for today's learning (they came with the learned field), `--starts-weight` or the product's on the `on` side. */
function startsWeightOf(side: Side): number | undefined {
  if (side === "today") return 0;
  const given = option("starts-weight", "");
  return side === "on" && given !== "" ? Number(given) : undefined;
}

/** `--half=a|b`: whether a task is in the half measured (a hash of its text decides; no half: every task). */
function inHalf(task: Task): boolean {
  const half = option("half", "");
  if (half === "") return true;
  let hash = 2166136261;
  for (let i = 0; i < task.text.length; i += 1) hash = Math.imul(hash ^ task.text.charCodeAt(i), 16777619);
  return ((hash >>> 0) % 2 === 0) === (half === "a");
}

/** Which conversations of the stream are careless (`--careless=share`, seeded apart from the stream's order). */
function carelessMask(length: number, seed: number): boolean[] {
  const share = Number(option("careless", "0"));
  const random = seededRandom(seed + 7919);
  return Array.from({ length }, () => random() < share);
}

/** Where one side's conversations are kept, so the two sides can run in separate processes (`--learning=on|off --results=DIR`). */
const resultsFile = (dir: string, name: string, seed: number, limit: number, side: Side): string => {
  const variant = ["half", "careless", ...(side === "on" ? ["field-weight", "starts-weight"] : [])]
    .map((name) => [name, option(name, "")])
    .filter(([, value]) => value !== "")
    .map(([name, value]) => `-${name}${value}`)
    .join("");
  return join(dir, `${name}-seed${seed}-limit${limit}${variant}-${side}.json`);
};

/** One tenant's pass over the stream, in order: each conversation has ended (and been learned from) before the next begins. */
async function replay(
  service: TestService,
  inspector: Inspector | undefined,
  name: string,
  dataset: Dataset,
  stream: readonly Task[],
  sides: readonly Side[],
  save: (runs: ReadonlyMap<Side, Conversation[]>) => void,
): Promise<{ runs: Map<Side, Conversation[]>; setupMs: number; streamMs: number; keys: string[] }> {
  const defs = new Map(dataset.defs.map((d) => [d.name, d]));
  const t0 = performance.now();
  const keys: string[] = [];
  for (const side of sides)
    keys.push(await freshTenant(service, `implicit-${side}-${name}`, dataset, side !== "off", fieldWeightOf(side), startsWeightOf(side)));
  const careless = carelessMask(stream.length, Number(option("seed", "30")));
  const setupMs = performance.now() - t0;
  const runs = new Map<Side, Conversation[]>(sides.map((side) => [side, []]));
  const t1 = performance.now();
  for (const [i, task] of stream.entries()) {
    // The tenants are separate Durable Objects: their conversations run side by side (one after
    // another when profiled, so that each profile holds one tenant's work).
    const answers =
      inspector === undefined
        ? await Promise.all(keys.map((key) => converse(service, key, task, defs, careless[i] === true)))
        : await profiledEach(inspector, keys, (key) => converse(service, key, task, defs, careless[i] === true));
    sides.forEach((side, j) => runs.get(side)?.push(answers[j] as Conversation));
    if ((i + 1) % 50 === 0) {
      const last = sides.map((side) => `${side} ${share((runs.get(side) ?? []).slice(-50).map((c) => c.firstHit))}`).join(", ");
      console.error(`${name}: ${i + 1} of ${stream.length} tasks, ${ms(performance.now() - t1)}; last 50 first-step ${last}`);
      save(runs);
    }
  }
  return { runs, setupMs, streamMs: performance.now() - t1, keys };
}

async function runSet(service: TestService, inspector: Inspector | undefined, name: string, dataset: Dataset, seed: number, limit: number): Promise<void> {
  const stream = streamOf(dataset, seed, limit);
  const sides = chosenSides();
  const dir = option("results", "");
  const save = (runs: ReadonlyMap<Side, Conversation[]>): void => {
    if (dir === "") return;
    mkdirSync(dir, { recursive: true });
    for (const [side, conversations] of runs) writeFileSync(resultsFile(dir, name, seed, limit, side), JSON.stringify(conversations));
  };
  const { runs, setupMs, streamMs, keys } = await replay(service, inspector, name, dataset, stream, sides, save);
  save(runs);
  // The signal weights each learning tenant's own replay chose by the stream's end.
  for (const [j, side] of sides.entries()) {
    if (side === "off") continue;
    const calibration = await service.json<{ weights: Record<string, number> }>("GET", "/v1/routing/calibration", { key: keys[j] ?? "" });
    console.log(`${name} ${side}: calibrated weights ${JSON.stringify(calibration.body.weights)}`);
  }
  console.log(`\n${dataset.label}: ${stream.length} tasks (seed ${seed}), ${dataset.defs.length} tools; setup ${ms(setupMs)}, stream ${ms(streamMs)}`);
  if (dir !== "") {
    // The other side, when another process has replayed it already.
    for (const side of SIDES) {
      const file = resultsFile(dir, name, seed, limit, side);
      if (!runs.has(side) && existsSync(file)) runs.set(side, JSON.parse(readFileSync(file, "utf8")) as Conversation[]);
    }
  }
  report(dataset, stream, seed, runs, sides);
  console.log(`at the end: ${machineLine()}`);
}

/** The seeded stream of a set's tasks (one half of them with `--half`), at most `limit` long. */
function streamOf(dataset: Dataset, seed: number, limit: number): Task[] {
  return shuffle(
    dataset.tasks.filter((task) => inHalf(task)),
    seededRandom(seed),
  ).slice(0, limit);
}

/** The windows table (over the tasks every side has replayed so far), the whole stream per side, and where a conversation's time went. */
function report(dataset: Dataset, whole: readonly Task[], seed: number, runs: ReadonlyMap<Side, Conversation[]>, sides: readonly Side[]): void {
  const lengths = [...runs.values()].map((r) => r.length);
  const stream = whole.slice(0, Math.min(whole.length, ...lengths));
  if (stream.length < whole.length) console.log(`${dataset.label}: the first ${stream.length} of ${whole.length} tasks (seed ${seed}) replayed so far`);
  const present = SIDES.filter((side) => runs.has(side));
  const of = (side: Side): Conversation[] => (runs.get(side) ?? []).slice(0, stream.length);
  const firstSeen = firstToolSeenBefore(stream);
  const reachable = runs.has("off")
    ? reachableByLearning(
        stream,
        of("off").map((c) => c.firstHit),
      )
    : [];
  const rows = windows(stream.length).map(([from, to]) => [
    `${from + 1}–${to}`,
    ...present.map((side) =>
      share(
        of(side)
          .slice(from, to)
          .map((c) => c.firstHit),
      ),
    ),
    share(firstSeen.slice(from, to)),
    share(reachable.slice(from, to)),
    ...present.map((side) =>
      share(
        of(side)
          .slice(from, to)
          .flatMap((c) => c.laterHits),
      ),
    ),
  ]);
  rows.push([
    "whole stream",
    ...present.map((side) => share(of(side).map((c) => c.firstHit))),
    share(firstSeen),
    share(reachable),
    ...present.map((side) => share(of(side).flatMap((c) => c.laterHits))),
  ]);
  console.log(
    table(
      [
        "tasks",
        ...present.map((side) => `first-step recall@5 ${side}`),
        "first tool seen before",
        "reachable by learning (used before at any step, or found off)",
        ...present.map((side) => `later-step hit@5 ${side}`),
      ],
      rows,
    ),
  );
  const phases = (conversations: Conversation[]): string =>
    conversations.length === 0
      ? "–"
      : `connect ${ms(summary(conversations.map((c) => c.connectMs)).p50)}, find_tools ${ms(summary(conversations.flatMap((c) => c.findMs)).p50)}, call_tool ${ms(summary(conversations.flatMap((c) => c.callMs)).p50)}, end ${ms(summary(conversations.map((c) => c.endMs)).p50)}`;
  console.log(`p50 per conversation phase (this process: ${[...sides].join(", ")}): ${present.map((side) => `${side}: ${phases(of(side))}`).join("; ")}`);
  for (const side of present) {
    const costs = of(side).flatMap((c) => (c.cost === undefined ? [] : [c.cost]));
    if (costs.length > 0)
      console.log([`${side}: the isolate's CPU per conversation (profiled, ${costs.length} conversations)`, ...costLines(costs)].join("\n"));
  }
  const [on, off] = [of("on"), of("off")];
  // Profiled, the sides ran one after another under the sampler: their calls' latencies are not comparable.
  if (on.length === 0 || off.length === 0 || on.some((c) => c.cost !== undefined)) return;
  const [withRecording, without] = [summary(on.flatMap((c) => c.callMs)), summary(off.flatMap((c) => c.callMs))];
  console.log(
    `call_tool p50 ${ms(withRecording.p50)} recording, ${ms(without.p50)} not (${(withRecording.p50 / without.p50).toFixed(2)}×); p99 ${ms(withRecording.p99)} / ${ms(without.p99)}`,
  );
}

/**
 * Recording's cost on a call: the same find_tools then call_tool, `rounds` times, on a tenant that
 * records and one that does not, interleaved (order alternating), one conversation per 10 rounds;
 * only call_tool is timed.
 */
async function overhead(service: TestService, rounds: number): Promise<void> {
  const dataset = await restBench();
  const defs = new Map(dataset.defs.map((d) => [d.name, d]));
  const tenants = [await freshTenant(service, "overhead-on", dataset, true), await freshTenant(service, "overhead-off", dataset, false)];
  const clients: (Client | undefined)[] = [undefined, undefined];
  const timings: number[][] = [[], []];
  const [task] = dataset.tasks;
  if (task === undefined) throw new Error("no RestBench task");
  const [first] = task.gold;
  for (let round = 0; round < rounds; round++) {
    for (const which of round % 2 === 0 ? [0, 1] : [1, 0]) {
      if (round % 10 === 0) {
        const old = clients[which];
        if (old !== undefined) {
          await (old.transport as StreamableHTTPClientTransport).terminateSession();
          await old.close();
        }
        clients[which] = await connectMcp(service, tenants[which] ?? "");
      }
      const client = clients[which];
      if (client === undefined || first === undefined) continue;
      await findTools(client, task.text, null);
      const t0 = performance.now();
      await client.callTool({ name: "call_tool", arguments: { name: first, arguments: placeholderArguments(defs.get(first)) } }, CallToolResultSchema);
      timings[which]?.push(performance.now() - t0);
    }
  }
  for (const client of clients) await client?.close();
  const [on, off] = timings.map((t) => summary(t));
  if (on === undefined || off === undefined) return;
  console.log(`\nRecording overhead (${rounds} interleaved call_tool after find_tools, RestBench tool ${first}):`);
  console.log(`call_tool p50 ${ms(on.p50)} recording, ${ms(off.p50)} not: ${(on.p50 / off.p50).toFixed(2)}×; p99 ${ms(on.p99)} / ${ms(off.p99)}`);
}

async function main(): Promise<void> {
  const sets = option("sets", "api-bank,stabletoolbench,seal-tools,restbench")
    .split(",")
    .filter((name) => name !== "" && name !== "none");
  const seed = Number(option("seed", "30"));
  const limit = Number(option("limit", "100000"));
  console.log(`Implicit learning through the MCP face — ${machineLine()}`);
  if (process.argv.includes("--report")) {
    // Only the table, from what `--results=DIR` runs have kept so far (runs that are still under way included).
    for (const name of sets) {
      const load = DATASETS[name];
      if (load === undefined) throw new Error(`unknown set ${name}`);
      const dataset = await load();
      const stream = streamOf(dataset, seed, limit);
      const runs = new Map<Side, Conversation[]>();
      for (const side of SIDES) {
        const file = resultsFile(option("results", "."), name, seed, limit, side);
        if (existsSync(file)) runs.set(side, JSON.parse(readFileSync(file, "utf8")) as Conversation[]);
      }
      console.log(`\n${dataset.label}: ${stream.length} tasks (seed ${seed}), ${dataset.defs.length} tools`);
      report(dataset, stream, seed, runs, []);
    }
    return;
  }
  const port = process.argv.includes("--profile") ? await freePort() : undefined;
  const { service } = await startBenchService({
    outbound: () => Response.json({ ok: true, results: [{ id: 1, name: "x" }] }),
    ...(port === undefined ? {} : { inspectorPort: port }),
  });
  const inspector = port === undefined ? undefined : await serviceInspector(port);
  try {
    for (const name of sets) {
      const load = DATASETS[name];
      if (load === undefined) throw new Error(`unknown set ${name}; sets: ${Object.keys(DATASETS).join(", ")}`);
      await runSet(service, inspector, name, await load(), seed, limit);
    }
    const rounds = Number(option("overhead-rounds", "300"));
    if (rounds > 0) await overhead(service, rounds);
  } finally {
    inspector?.close();
    await service.dispose();
  }
}

await main();
