import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A fetch-style handler (`Request` in, `Response` out) as an HTTP server on 127.0.0.1, the way
 * Ollama or LM Studio serve a model: what `npm start` reaches with MODEL_ALLOW_LOOPBACK=true.
 * The demo model runs behind it, and the tests' scripted model too.
 */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  close(): Promise<void>;
}

/** `port` 0 (the default) takes a free one. */
export async function serveOnLoopback(handle: (request: Request) => Promise<Response>, port = 0): Promise<LoopbackServer> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
      const body = Buffer.concat(chunks).toString("utf8");
      const request = new Request(`http://127.0.0.1${req.url ?? "/"}`, {
        method: req.method ?? "GET",
        headers,
        ...(req.method === "GET" || req.method === "HEAD" ? {} : { body }),
      });
      void handle(request).then(
        async (response) => {
          res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
          res.end(Buffer.from(await response.arrayBuffer()));
        },
        (error: unknown) => {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: String(error) } }));
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const listening = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${listening}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
