/**
 * A minimal Chrome DevTools Protocol session over a workerd inspector's WebSocket (route-profile
 * takes CPU profiles through it; the soak reads the service's live heap).
 */
export class Inspector {
  #socket: WebSocket;
  #next = 1;
  #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
      if (message.id === undefined) return;
      const waiter = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new Error(message.error.message));
      else waiter?.resolve(message.result);
    });
  }

  static async open(url: string): Promise<Inspector> {
    // wrangler's inspector proxy (npm start) refuses a client that sends a User-Agent without an Origin.
    // (Node's WebSocket takes headers in its second argument; the DOM typings do not know that.)
    const NodeWebSocket = WebSocket as unknown as new (url: string, init: { headers: Record<string, string> }) => WebSocket;
    const socket = new NodeWebSocket(url, { headers: { Origin: new URL(url).origin.replace(/^ws/, "http") } });
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve(), { once: true });
      socket.addEventListener("error", () => reject(new Error(`inspector: cannot open ${url}`)), { once: true });
    });
    return new Inspector(socket);
  }

  send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.#next++;
    this.#socket.send(JSON.stringify({ id, method, params }));
    return new Promise<T>((resolve, reject) => this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject }));
  }

  /** Send without waiting for the answer (wrangler's proxy does not pass every answer back under its id). */
  post(method: string, params: Record<string, unknown> = {}): void {
    this.#socket.send(JSON.stringify({ id: this.#next++, method, params }));
  }

  close(): void {
    this.#socket.close();
  }
}

/** The inspector session of the service's isolate (the Worker and its Durable Objects) on `port`. */
export async function serviceInspector(port: number): Promise<Inspector> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { title: string; webSocketDebuggerUrl: string }[];
  const target = targets.find((t) => t.title.includes("atc-edge")) ?? targets[0];
  if (target === undefined) throw new Error("no inspector target");
  return Inspector.open(target.webSocketDebuggerUrl);
}
