import { describe, expect, it } from "vitest";
import { type FlowTool, flowTool } from "../../functions/toolnet/data-flow";
import { decodeFlowState, encodeFlowState } from "../../functions/toolnet/flow-samples-codec";
import type { ToolParameter } from "../../functions/tools/definition";

/** Microsoft Graph's list operations: two path identifiers and the OData query options, all optional. */
const ODATA = ["$top", "$skip", "$search", "$filter", "$count", "$orderby", "$select", "$expand"];

function graphLike(i: number): FlowTool {
  const parameters: ToolParameter[] = [
    { name: "user-id", in: "path", required: true, schema: { type: "string" } },
    { name: "event-id", in: "path", required: true, schema: { type: "string" } },
    ...ODATA.map(
      (name): ToolParameter => ({ name, in: "query", required: false, schema: { type: "array", items: { type: "string", enum: ["id", "subject"] } } }),
    ),
    { name: "ConsistencyLevel", in: "header", required: true, schema: { type: "string" } },
  ];
  return flowTool({
    name: `usersEventsListInstances${i}`,
    path: `/users/{user-id}/events/{event-id}/instances${i}`,
    serverUrl: "https://graph.microsoft.com/v1.0",
    parameters,
  });
}

describe("the stored data-flow state of one big API", () => {
  it("stores an input data flow reads by name alone (optional, or a header) as its name, and reads back what flowTool makes", () => {
    const tools = new Map(Array.from({ length: 50 }, (_, i) => graphLike(i)).map((tool) => [tool.name, tool]));
    const bytes = encodeFlowState({ tools, samples: new Map() });
    // A cold route of a tenant whose data flow is served per request parses every tool's stored
    // form: its 9 inputs read by name took ≈ 70 bytes each as objects with a schema (≈ 1,050 a tool), now ≈ 25.
    expect(bytes.length / tools.size).toBeLessThan(700);
    const decoded = decodeFlowState(bytes);
    const first = decoded?.tools.get("usersEventsListInstances0");
    expect(first?.parameters.filter((p) => p.required && p.in !== "header").map((p) => p.name)).toEqual(["user-id", "event-id"]);
    expect(first?.parameters.slice(2)).toEqual(tools.get("usersEventsListInstances0")?.parameters.slice(2));
  });
});
