import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { utf8Length } from "./outcome";
import type { RunLimits } from "./run-limits";

/** A run's console: the lines a program logs, kept within the run's line and byte limits. */
export class RunLog {
  readonly #limits: Pick<RunLimits, "maxLogLines" | "maxLogBytes" | "maxLogLineChars">;
  readonly #logs: string[] = [];
  #logBytes = 0;
  #logTruncated = false;

  constructor(limits: Pick<RunLimits, "maxLogLines" | "maxLogBytes" | "maxLogLineChars">) {
    this.#limits = limits;
  }

  /** Keep one console line if the log has room; false once it is full (the bootstrap stops logging). */
  keep(context: QuickJSContext, lineHandle: QuickJSHandle): boolean {
    const { maxLogLines, maxLogBytes, maxLogLineChars } = this.#limits;
    if (this.#logs.length >= maxLogLines || this.#logBytes >= maxLogBytes) {
      this.#logTruncated = true;
      return false;
    }
    if (context.typeof(lineHandle) !== "string") return true;
    const length = context.getLength(lineHandle) ?? 0;
    // The bootstrap already cut the line; a longer one means the program bypassed it.
    const line = length > maxLogLineChars + 1 ? "[log line too long]" : context.getString(lineHandle);
    const bytes = utf8Length(line);
    if (this.#logBytes + bytes > maxLogBytes) {
      this.#logTruncated = true;
      this.#logBytes = maxLogBytes;
      return false;
    }
    this.#logBytes += bytes;
    this.#logs.push(line);
    return true;
  }

  /** The kept lines, and a last one saying so when some were not kept. */
  lines(): string[] {
    const lines = [...this.#logs];
    if (this.#logTruncated) {
      lines.push(`[log truncated: at most ${this.#limits.maxLogLines} lines and ${this.#limits.maxLogBytes} bytes are kept]`);
    }
    return lines;
  }
}
