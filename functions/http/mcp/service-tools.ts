import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { beginRun, startRun } from "../../services/start-run";
import type { TenantApi } from "../../tenant-api/tenant-api";
import { unwrap } from "../../common/failures";
import { runSlotsTaken } from "../run-slot";
import { MaxTokens } from "../endpoints/route-answer";
import { CreateRun, runSettings } from "../endpoints/runs";
import { MAX_EVALUATOR_SCORE, MIN_EVALUATOR_SCORE } from "../../toolnet/graph";
import { routeWithTaskVector } from "../../services/tool-embeddings";
import { ToolName } from "../../tools/definition";
import type { ConversationObserver } from "../observed-conversation";
import { callRegisteredTool } from "./call-registered-tool";
import { progressReporter } from "./run-progress";
import { jsonResult, problemResult } from "./tool-results";

/** The calling tenant, as every MCP tool sees it. */
export interface McpTenantContext {
  env: Env;
  tenantId: string;
  tenant: TenantApi;
  /** The MCP session's conversation, when the client keeps its session id (implicit learning). */
  observer?: ConversationObserver | undefined;
}

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** One tool of the MCP face: its input schema (zod, shown as JSON Schema) and its handler. */
export interface ServiceTool<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: S;
  readOnly: boolean;
  handle(args: z.infer<S>, context: McpTenantContext, extra: ToolExtra): Promise<CallToolResult>;
}

const defineTool = <S extends z.ZodType>(tool: ServiceTool<S>): ServiceTool => tool as unknown as ServiceTool;

const Score = z.number().int().min(MIN_EVALUATOR_SCORE).max(MAX_EVALUATOR_SCORE);

const findTools = defineTool({
  name: "find_tools",
  title: "Find tools",
  description:
    "Which of this tenant's tools fit the next step of a task: ranked candidates with short descriptions and input schemas. First step: omit previous_tool. After calling a tool, pass its name as previous_tool to get what fits next (learned transitions, data flow from its output, relevance to the task). Then call one with call_tool.",
  readOnly: true,
  input: z
    .object({
      task: z.string().trim().min(1).max(10_000).describe("What the user wants done"),
      previous_tool: z.string().max(200).nullable().optional().describe("The tool used last; omit for the first step"),
      k: z.number().int().min(1).max(50).default(8).describe("How many candidates"),
      max_tokens: MaxTokens.optional().describe("Token budget of the candidates shown; default: the tenant's routing setting"),
    })
    .strict(),
  async handle(args, { env, tenantId, tenant, observer }) {
    const previous = args.previous_tool ?? null;
    // Task relevance is part of every step (fused routing, as POST /v1/route does by default).
    // Only the tools array: the result carries their schemas, not a prompt block, so the budget
    // is spent on what is returned.
    const options = { include: ["tools" as const], ...(args.max_tokens === undefined ? {} : { maxTokens: args.max_tokens }) };
    const answer = unwrap(
      await routeWithTaskVector(
        env,
        tenantId,
        tenant,
        args.task,
        (query) => tenant.routing.route(args.task, previous, args.k, query, options),
        () => tenant.routing.routeUnlessEmbedded(args.task, previous, args.k, options),
      ),
    );
    const schemas = new Map((answer.tools ?? []).map((tool) => [tool.function.name, tool.function.parameters ?? { type: "object" }]));
    observer?.search(
      args.task,
      previous,
      answer.candidates.map((candidate) => candidate.name),
    );
    const candidates = answer.candidates.map((candidate) => ({
      ...candidate,
      ...(schemas.has(candidate.name) ? { inputSchema: schemas.get(candidate.name) } : {}),
    }));
    return jsonResult({ via: answer.via, previous: answer.previous, candidates, overBudget: answer.overBudget, tokens: answer.tokens });
  },
});

const callToolByName = defineTool({
  name: "call_tool",
  title: "Call a tool",
  description:
    "Call one of this tenant's tools by name with arguments matching its input schema (see find_tools). The service validates the arguments, injects the tool's credential and returns the tool's response.",
  readOnly: false,
  input: z
    .object({
      name: ToolName.describe("A tool name from find_tools"),
      arguments: z.record(z.string(), z.unknown()).default({}).describe("The tool's arguments"),
    })
    .strict(),
  handle: (args, context) => callRegisteredTool(context, args.name, args.arguments),
});

const runTask = defineTool({
  name: "run_task",
  title: "Run a task",
  description:
    "Solve a whole task in one go: the service writes one program that calls a chain of this tenant's tools, runs it in a sandbox and repairs it on errors. Returns the answer and a run_id for give_feedback. Progress is reported while it runs.",
  readOnly: false,
  input: z
    .object({
      task: z.string().trim().min(1).max(10_000).describe("The task, in plain words"),
      tools: z.array(ToolName).min(1).max(100).optional().describe("Tools to use; default: chosen by routing"),
    })
    .strict(),
  async handle(args, { env, tenantId, tenant }, extra) {
    const request = CreateRun.parse({ task: args.task, ...(args.tools === undefined ? {} : { tools: args.tools }) });
    // The same per-tenant limit of runs in flight as POST /v1/runs.
    const begun = await beginRun(tenant, { task: request.task, tools: request.tools });
    if ("refused" in begun) return problemResult(runSlotsTaken(begun.refused.limit));
    let run: Awaited<ReturnType<typeof startRun>>;
    try {
      run = await startRun(env, tenantId, begun.run, request, runSettings(request), progressReporter(extra));
    } finally {
      await begun.run.release();
    }
    const summary = {
      run_id: run.id,
      status: run.status,
      answer: run.answer ?? null,
      error: run.error ?? null,
      tools_called: run.trajectory,
      attempts: run.attempts.length,
      usage: run.usage,
    };
    return jsonResult(summary, run.status !== "succeeded");
  },
});

const giveFeedback = defineTool({
  name: "give_feedback",
  title: "Give feedback",
  description:
    "Tell the service how well tools worked, so routing learns: either run_id and one score for that run's tool calls, or tools (in the order used) with one score each (scores) or one for all (score). Scores are integers from -3 (harmful) to 3 (excellent).",
  readOnly: false,
  input: z
    .object({
      run_id: z.string().min(1).max(100).optional().describe("A run_id from run_task"),
      tools: z.array(z.string().min(1).max(200)).min(1).max(256).optional().describe("The tools of one trajectory, in order"),
      score: Score.optional().describe("One score for the run, or for every tool"),
      scores: z.array(Score).min(1).max(256).optional().describe("One score per tool"),
    })
    .strict()
    .refine((f) => (f.run_id === undefined) !== (f.tools === undefined), { message: "give either run_id or tools" })
    .refine((f) => (f.run_id === undefined ? (f.score !== undefined) !== (f.scores !== undefined) : f.score !== undefined && f.scores === undefined), {
      message: "run_id takes score; tools take score or scores",
    })
    .refine((f) => f.scores === undefined || f.scores.length === f.tools?.length, { message: "one score per tool", path: ["scores"] }),
  async handle(args, { tenant, observer }) {
    const input =
      args.run_id !== undefined
        ? { runId: args.run_id, score: args.score ?? 0 }
        : { tools: args.tools ?? [], scores: args.scores ?? (args.tools ?? []).map(() => args.score ?? 0) };
    const result = unwrap(await tenant.applyFeedback(input, observer?.conversation));
    return jsonResult({ updated: result.updated.map((u) => ({ ...u })), skippedTools: [...result.skippedTools] });
  },
});

/** The tools every tenant's MCP server offers, in the order clients list them. */
export const SERVICE_TOOLS: readonly ServiceTool[] = [findTools, callToolByName, runTask, giveFeedback];
