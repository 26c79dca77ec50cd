import { signWebhook } from "../../functions/webhooks/standard-webhooks";

/**
 * The soak's request kinds: each sends one request to `npm start` and says how it went: `ok`,
 * `refused` (an intended refusal: a bad key's 401, a quota's 429, a redelivery's 409) or an
 * error with a short reason. Only loopback addresses are ever contacted.
 */

export type Outcome = { result: "ok" | "refused"; note?: string } | { result: "error"; reason: string };

export interface SoakContext {
  baseUrl: string;
  key: string;
  webhookSecret: string;
  /** A counter for unique ids (webhook deliveries, trajectories). */
  next(): number;
}

export const SOAK_TOOLS = [
  { name: "soakEcho", method: "GET", url: "https://soak.example.com/echo/{word}" },
  { name: "soakTotals", method: "GET", url: "https://soak.example.com/totals" },
];
/** A tool whose host name does not resolve (`.invalid` never does): a call to it answers `name_lookup`. */
export const UNRESOLVABLE_TOOL = { name: "soakNowhere", method: "GET", url: "https://soak-nowhere.invalid/things" };
/** A tool on a plausible name that has no address (a typo): locally the program host's resolver says so. */
export const TYPO_HOST_TOOL = { name: "soakTypo", method: "GET", url: "https://api.soak-typo-qzxvkwrtpl.com/things" };

export const RUN_TASK = "How many movies has Bradley Cooper acted in?";
export const LOOP_TASK = "HOSTILE loop: count for ever";
export const BOMB_TASK = "HOSTILE bomb: allocate without bound";
const ROUTE_TASKS = [
  "Who directed Inception?",
  "How many movies has Bradley Cooper acted in?",
  "What is the weather in Paris tomorrow?",
  "Find a vegetarian pasta recipe",
  "Which movies did Christopher Nolan direct?",
];

async function send(
  ctx: SoakContext,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${ctx.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${ctx.key}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    signal: AbortSignal.timeout(120_000),
  });
  return { status: response.status, text: await response.text() };
}

function expectStatus(answer: { status: number; text: string }, ok: readonly number[], refused: readonly number[] = []): Outcome {
  if (ok.includes(answer.status)) return { result: "ok" };
  if (refused.includes(answer.status)) return { result: "refused", note: String(answer.status) };
  return { result: "error", reason: `${answer.status} ${answer.text.slice(0, 160)}` };
}

/** One MCP tools/call over plain HTTP (stateless), its JSON-RPC result read from the SSE answer. */
async function mcpCall(ctx: SoakContext, tool: string, args: Record<string, unknown>): Promise<Outcome> {
  const answer = await send(
    ctx,
    "POST",
    "/mcp",
    { jsonrpc: "2.0", id: ctx.next(), method: "tools/call", params: { name: tool, arguments: args } },
    { accept: "application/json, text/event-stream" },
  );
  if (answer.status !== 200) return expectStatus(answer, [], [429]);
  const data = answer.text.split("\n").find((line) => line.startsWith("data: ") || line.startsWith("{"));
  const message = JSON.parse(data?.startsWith("data: ") ? data.slice(6) : (data ?? "{}")) as {
    result?: { isError?: boolean; content?: { text?: string }[] };
    error?: unknown;
  };
  if (message.result === undefined) return { result: "error", reason: `mcp ${tool}: ${JSON.stringify(message.error ?? message).slice(0, 160)}` };
  if (message.result.isError === true) return { result: "error", reason: `mcp ${tool}: ${message.result.content?.[0]?.text?.slice(0, 160) ?? "isError"}` };
  return { result: "ok" };
}

async function toolCall(ctx: SoakContext, name: string, args: Record<string, unknown>, expectOk: boolean): Promise<Outcome> {
  const answer = await send(ctx, "POST", `/v1/tools/${name}/call`, { arguments: args });
  if (answer.status === 429) return { result: "refused", note: "429" };
  if (answer.status !== 200) return { result: "error", reason: `${answer.status} ${answer.text.slice(0, 160)}` };
  const body = JSON.parse(answer.text) as { ok: boolean; error?: { cause?: string } };
  if (body.ok === expectOk) return { result: "ok", ...(body.error?.cause === undefined ? {} : { note: `cause ${body.error.cause}` }) };
  return { result: "error", reason: `call ${name}: ok ${body.ok}: ${answer.text.slice(0, 160)}` };
}

async function run(ctx: SoakContext, task: string, expected: "succeeded" | "failed", expectedError?: string): Promise<Outcome> {
  const answer = await send(ctx, "POST", "/v1/runs", { task, tools: ["getSearchPerson", "getPersonPersonIdMovieCredits"], maxAttempts: 1 });
  if (answer.status === 429) return { result: "refused", note: "429 runs in flight" };
  if (answer.status !== 201) return { result: "error", reason: `run ${answer.status} ${answer.text.slice(0, 160)}` };
  const body = JSON.parse(answer.text) as { status: string; attempts?: { error?: { kind?: string } }[] };
  const kind = body.attempts?.[0]?.error?.kind ?? "failed";
  if (body.status === expected && (expected === "succeeded" || kind === expectedError))
    return { result: "ok", ...(expected === "failed" ? { note: kind } : {}) };
  return { result: "error", reason: `run ${task.slice(0, 20)}: ${body.status}: ${answer.text.slice(0, 200)}` };
}

async function webhook(ctx: SoakContext, redeliver: boolean): Promise<Outcome> {
  const id = `msg_soak_${redeliver ? "again" : ctx.next()}`;
  const body = JSON.stringify({ tools: SOAK_TOOLS, source: "soak" });
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = await signWebhook(ctx.webhookSecret, id, timestamp, body);
  const answer = await fetch(`${ctx.baseUrl}/v1/webhooks/demo/tools`, {
    method: "POST",
    headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signature },
    body,
    signal: AbortSignal.timeout(60_000),
  });
  return expectStatus({ status: answer.status, text: await answer.text() }, [202], [409]);
}

/** The kinds with their share of the traffic (weights). */
export const KINDS: Record<string, { weight: number; send: (ctx: SoakContext) => Promise<Outcome> }> = {
  route: {
    weight: 30,
    send: async (ctx) => expectStatus(await send(ctx, "POST", "/v1/route", { task: ROUTE_TASKS[ctx.next() % ROUTE_TASKS.length], k: 5 }), [200], [429]),
  },
  "mcp find_tools": { weight: 10, send: (ctx) => mcpCall(ctx, "find_tools", { task: ROUTE_TASKS[ctx.next() % ROUTE_TASKS.length], k: 3 }) },
  "mcp call_tool": { weight: 6, send: (ctx) => mcpCall(ctx, "call_tool", { name: "getSearchPerson", arguments: { query: "Tom Hanks" } }) },
  "tool call": { weight: 8, send: (ctx) => toolCall(ctx, "getSearchPerson", { query: "Bradley Cooper" }, true) },
  "unresolvable call": { weight: 3, send: (ctx) => toolCall(ctx, UNRESOLVABLE_TOOL.name, {}, false) },
  "typo-host call": { weight: 2, send: (ctx) => toolCall(ctx, TYPO_HOST_TOOL.name, {}, false) },
  feedback: {
    weight: 10,
    send: async (ctx) =>
      expectStatus(await send(ctx, "POST", "/v1/feedback", { tools: ["getSearchPerson", "getPersonPersonIdMovieCredits"], scores: [1, 2] }), [200], [429]),
  },
  run: { weight: 5, send: (ctx) => run(ctx, RUN_TASK, "succeeded") },
  "hostile run": { weight: 1, send: (ctx) => run(ctx, LOOP_TASK, "failed", "cpu_budget") },
  probe: { weight: 1, send: async (ctx) => expectStatus(await send(ctx, "POST", "/v1/probe", { tools: ["soakEcho"] }), [202], [429]) },
  import: { weight: 2, send: async (ctx) => expectStatus(await send(ctx, "POST", "/v1/tools/import", { format: "list", tools: SOAK_TOOLS }), [200], [429]) },
  webhook: { weight: 2, send: (ctx) => webhook(ctx, ctx.next() % 4 === 0) },
  "bad key": { weight: 2, send: async (ctx) => expectStatus(await send({ ...ctx, key: `atc_demo_${"x".repeat(32)}` }, "GET", "/v1/tools"), [], [401, 429]) },
};

/** The memory bomb, sent on its own schedule (not by weight). */
export const memoryBomb = (ctx: SoakContext): Promise<Outcome> => run(ctx, BOMB_TASK, "failed", "memory");
