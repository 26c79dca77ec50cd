import type { RunEvent } from "../../chain/run-task";
import type { ToolExtra } from "./service-tools";

/**
 * A run's events as MCP progress notifications on the request's own stream, when the client asked
 * for progress (a `progressToken`). The total is unknown up front, so only `progress` grows.
 */
export function progressReporter(extra: ToolExtra): ((event: RunEvent) => void) | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let progress = 0;
  return (event) => {
    progress += 1;
    extra
      .sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, message: describeEvent(event) } })
      .catch(() => undefined); // a client that went away does not stop the run
  };
}

/** One line a person can read in a client's progress display. */
export function describeEvent(event: RunEvent): string {
  switch (event.type) {
    case "attempt_started":
      return `attempt ${event.attempt}: writing a program`;
    case "program":
      return `attempt ${event.attempt}: running the program`;
    case "tool_called":
      return `attempt ${event.attempt}: ${event.tool} ${event.ok ? "answered" : "failed"}${event.status === undefined ? "" : ` (HTTP ${event.status})`}`;
    case "error":
      return `attempt ${event.attempt}: ${event.error.kind} error${event.attributedTool === undefined ? "" : `, attributed to ${event.attributedTool}`}`;
    case "answer":
      return `attempt ${event.attempt}: answer ready`;
  }
}
