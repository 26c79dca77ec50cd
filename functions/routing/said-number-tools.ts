import { needsSaidNumber } from "../toolnet/task-fit";
import type { ToolDefinition } from "../tools/definition";

/** Registered tools' parameters, several in one read (the registry's `parametersOf`). */
export type ParametersOf = (names: readonly string[]) => Map<string, ToolDefinition["parameters"]>;

/**
 * Which tools need a number the task must say (task-fit.ts), remembered per tool until it
 * changes. A first step asks it of its most relevant tools whenever the task gives no number:
 * reading and parsing each one's whole definition for it cost as much as the search. The tools not
 * known yet are read in one go, their parameters alone.
 */
export class SaidNumberTools {
  readonly #parametersOf: ParametersOf;
  readonly #known = new Map<string, boolean>();

  constructor(parametersOf: ParametersOf) {
    this.#parametersOf = parametersOf;
  }

  /** `isUnfit` for `withUnfitLower` over `tools`: its first question reads the tools not known yet. A tool not registered is not unfit. */
  unfitAmong(tools: readonly string[]): (tool: string) => boolean {
    let read = false;
    return (tool) => {
      if (!read) {
        this.#learn(tools);
        read = true;
      }
      return this.#known.get(tool) ?? false;
    };
  }

  /** Forgets changed or removed tools: their parameters are read again when next asked. */
  forget(tools: Iterable<string>): void {
    for (const tool of tools) this.#known.delete(tool);
  }

  #learn(tools: readonly string[]): void {
    const unknown = tools.filter((tool) => !this.#known.has(tool));
    if (unknown.length === 0) return;
    const parameters = this.#parametersOf(unknown);
    for (const [tool, list] of parameters) this.#known.set(tool, needsSaidNumber({ parameters: list }));
  }
}
