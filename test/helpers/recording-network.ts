import { ToolDefinition } from "../../functions/tools/definition";

/** A GET tool on `serverUrl` (path /x), for tests of the safe-call path. */
export const toolOn = (serverUrl: string) => ToolDefinition.parse({ name: "t", method: "GET", serverUrl, path: "/x", operation: "GET /x" });

/** A network that records what it was asked for and answers 200 (or, first, a redirect to `location`). */
export function recordingNetwork(location?: string) {
  const asked: string[] = [];
  const fetch: typeof globalThis.fetch = async (input) => {
    asked.push(String(input));
    return location !== undefined && asked.length === 1 ? new Response(null, { status: 302, headers: { location } }) : Response.json({ fine: true });
  };
  return { asked, fetch };
}
