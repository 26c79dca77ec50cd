import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { PROBLEM_BASE, PROBLEM_KINDS } from "../problem";
import type { FailureData } from "../../common/failures";

/**
 * What the MCP tools answer: JSON as text (what most chat clients show the model) plus the same
 * value as structured content; failures as MCP tool errors whose structured content is the
 * RFC 9457 problem the REST API would have answered, with the same `type`.
 */

/** A successful (or, with `isError`, a failed but completed) tool result carrying `value`. */
export function jsonResult(value: Record<string, unknown>, isError = false): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value, ...(isError ? { isError: true } : {}) };
}

/** A problem as an MCP tool error. */
export function problemResult(problem: FailureData): CallToolResult {
  const kind = PROBLEM_KINDS[problem.kind];
  const body = {
    type: PROBLEM_BASE + problem.kind,
    title: kind.title,
    status: kind.status,
    ...(problem.detail === undefined ? {} : { detail: problem.detail }),
    ...(problem.errors === undefined ? {} : { errors: problem.errors }),
  };
  return { content: [{ type: "text", text: `${kind.title}: ${problem.detail ?? kind.title} (${body.type})` }], structuredContent: body, isError: true };
}
