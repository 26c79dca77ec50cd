import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "./app-env";
import { tenantStub } from "../tenant-api/tenant-api";
import { callOutcome } from "../toolnet/observed-session";
import type { ToolCallResult } from "../tools/safe-call";

/**
 * Implicit learning's side in the Worker: which conversation a request belongs to (an MCP
 * session, or the `Conversation-Id` header of a REST call), and the recording of its searches and
 * calls in the tenant's object (tenant-observed.ts). Recording is handed to `waitUntil`, so the
 * answer never waits for it; the request was admitted before anything is recorded.
 */

/** Visible ASCII, as MCP session ids are; long enough for a UUID with a prefix of the caller's. */
export const ConversationId = z
  .string()
  .regex(/^[\x21-\x7E]{1,128}$/, "a conversation id is 1–128 visible ASCII characters")
  .describe("Joins this request's search and the tool calls that follow it into one observed conversation (implicit learning)");

/** The optional `Conversation-Id` header of the REST calls that implicit learning observes. */
export const ConversationHeaders = z.object({ "conversation-id": ConversationId.optional() });

/** Where observed conversations come from; the stored id is prefixed, so an MCP session and a REST id never meet. */
export type ConversationSource = "mcp" | "rest";

/** Records what one conversation does; every method returns at once. */
export interface ConversationObserver {
  /** The stored conversation id (prefixed by its source). */
  readonly conversation: string;
  search(task: string, previous: string | null, offered: readonly string[]): void;
  call(tool: string, result: ToolCallResult | "refused"): void;
}

export interface ObserverContext {
  env: Env;
  tenantId: string;
  waitUntil(promise: Promise<unknown>): void;
}

/** An observer for a conversation id, or undefined when the request names none (nothing is recorded). */
export function conversationObserver(context: ObserverContext, source: ConversationSource, id: string | undefined): ConversationObserver | undefined {
  if (id === undefined || !ConversationId.safeParse(id).success) return undefined;
  const conversation = `${source}:${id}`;
  const send = (record: (observed: ReturnType<typeof tenantStub>["observed"]) => Promise<void>): void => {
    // A fresh stub: the request's admitted one is disposed when the request ends.
    const recording = record(tenantStub(context.env, context.tenantId).observed).catch((error: unknown) => {
      console.error(
        JSON.stringify({ event: "observed-recording-failed", tenant: context.tenantId, error: error instanceof Error ? error.message : String(error) }),
      );
    });
    context.waitUntil(recording);
  };
  return {
    conversation,
    search: (task, previous, offered) => send((observed) => observed.recordSearch(conversation, task, previous, [...offered])),
    call: (tool, result) => {
      const outcome = result === "refused" ? callOutcome(undefined, true) : callOutcome(result.status, false);
      send((observed) => observed.recordCall(conversation, tool, outcome));
    },
  };
}

/** What an observer needs of a request: its tenant, and the request's `waitUntil`. */
export function observerContext(c: Context<AppEnv>): ObserverContext {
  return { env: c.env, tenantId: c.var.tenantId, waitUntil: (promise) => c.executionCtx.waitUntil(promise) };
}
