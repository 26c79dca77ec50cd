import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { TestService } from "./service";

/**
 * The SDK's own MCP client, connected to a test service's `/mcp` through Miniflare's
 * dispatchFetch (responses stream, so progress notifications arrive while a call runs).
 */

export const MCP_URL = "http://atc.test/mcp";

/** A fetch that goes to the service in workerd instead of the network. */
export function serviceFetch(service: TestService): typeof fetch {
  return async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const response = await service.mf.dispatchFetch(url, {
      method: init?.method ?? "GET",
      headers,
      ...(typeof init?.body === "string" ? { body: init.body } : {}),
      ...(init?.signal === undefined || init.signal === null ? {} : { signal: init.signal }),
    } as never);
    const nullBody = [101, 204, 205, 304].includes(response.status);
    return new Response(nullBody ? null : (response.body as ReadableStream<Uint8Array> | null), {
      status: response.status,
      statusText: response.statusText,
      headers: Object.fromEntries(response.headers.entries()),
    });
  };
}

/** Connect (initialize) as a tenant; close it when done. */
export async function connectMcp(service: TestService, key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: serviceFetch(service),
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: "atc-edge-tests", version: "1.0.0" });
  await client.connect(transport);
  return client;
}
