import type { ToolDefinition } from "../tools/definition";
import type { JsonRecord } from "./json";
import { seedIdentifiers } from "./seed";
import type { OperationBody, ParameterIn, WorldMount, WorldOperation } from "./types";
import { SimulatedWorld } from "./world";

/**
 * A simulated copy of a tenant's imported tools: the world serves each tool's own definition
 * (its documented example response, else data generated from its response schema, else an empty
 * success), so probing and tool play can exercise operations that would change real data. The
 * copy is per job: identifiers it hands out are accepted only within it.
 */

const COPY_ORIGIN = "http://simulated-copy.invalid";
const WORLD_PARAMETER_PLACES: ReadonlySet<string> = new Set<ParameterIn>(["path", "query", "header"]);

function operationOf(definition: ToolDefinition): WorldOperation {
  const body: OperationBody =
    definition.responseExample !== undefined
      ? { kind: "example", value: definition.responseExample }
      : definition.responseSchema !== undefined
        ? { kind: "schema", schema: definition.responseSchema as JsonRecord }
        : { kind: "empty" };
  return {
    method: definition.method.toUpperCase(),
    path: definition.path,
    name: definition.name,
    parameters: definition.parameters
      .filter((p) => WORLD_PARAMETER_PLACES.has(p.in))
      .map((p) => ({ name: p.name, in: p.in as ParameterIn, required: p.required, schema: p.schema as JsonRecord })),
    status: 200,
    body,
  };
}

/** A `fetch` answering every request to the tools' servers from the simulated copy. */
export function simulatedCopy(definitions: readonly ToolDefinition[]): typeof fetch {
  const servers = [...new Set(definitions.map((d) => d.serverUrl.replace(/\/+$/, "")))].sort((a, b) => b.length - a.length);
  const mounts: WorldMount[] = servers.map((server, i) => {
    const operations = definitions.filter((d) => d.serverUrl.replace(/\/+$/, "") === server).map(operationOf);
    return {
      prefix: `/copy${i}`,
      kind: "openapi",
      title: server,
      operations,
      skipped: [],
      seedIds: seedIdentifiers(operations, "entry-examples"),
      document: {},
    };
  });
  const world = new SimulatedWorld(mounts);
  return async (input, init) => {
    const request = new Request(input, init);
    const index = servers.findIndex((server) => request.url === server || request.url.startsWith(`${server}/`) || request.url.startsWith(`${server}?`));
    if (index < 0)
      return new Response(JSON.stringify({ error: "not part of the simulated copy" }), { status: 404, headers: { "content-type": "application/json" } });
    const rest = request.url.slice((servers[index] ?? "").length);
    const url = `${COPY_ORIGIN}/copy${index}${rest.startsWith("/") || rest === "" ? rest : `/${rest}`}`;
    return world.handle(
      new Request(url, { method: request.method, headers: request.headers, ...(request.body === null ? {} : { body: await request.arrayBuffer() }) }),
    );
  };
}
