import { RpcTarget } from "cloudflare:workers";
import type { CallContext, RelayedTools, ToolCallAnswer } from "../wire";
import type { AnswerMessage, CallMessage } from "./messages";

/**
 * The tools capability of one attempt on the program host: every `tools.x(args)` the harness
 * forwards becomes a `call` message on the attempt's socket, answered by the service (which holds
 * the tenant's credentials and the real call context). Created in the request that owns the
 * socket, so the isolate's calls come back into that request.
 */
export class ToolRelay extends RpcTarget implements RelayedTools {
  readonly #send: (message: CallMessage) => void;
  readonly #pending = new Map<number, { resolve: (answer: ToolCallAnswer) => void; reject: (error: Error) => void }>();
  #nextId = 1;
  #closedReason: string | undefined;

  constructor(send: (message: CallMessage) => void) {
    super();
    this.#send = send;
  }

  /** Ask the service; the context travels with the service's own copy, not this one. */
  call(name: string, args: unknown, _context: CallContext): Promise<ToolCallAnswer> {
    if (this.#closedReason !== undefined) return Promise.reject(new Error(this.#closedReason));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#send({ type: "call", id, name, args });
    });
  }

  /** Whether the attempt's socket is still open (the harness asks before it starts the program). */
  open(): boolean {
    return this.#closedReason === undefined;
  }

  /** The service's answer to call `id`. */
  answer(message: AnswerMessage): void {
    this.#pending.get(message.id)?.resolve(message.answer);
    this.#pending.delete(message.id);
  }

  /** The socket is gone: every waiting call fails, and so does every later one. */
  close(reason: string): void {
    this.#closedReason = reason;
    for (const { reject } of this.#pending.values()) reject(new Error(reason));
    this.#pending.clear();
  }
}
