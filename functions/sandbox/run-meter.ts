import { FUEL_ALLOWANCE, stopSandbox } from "./fuel";
import type { RunLimits } from "./run-limits";
import type { ProgramError, ProgramErrorKind } from "./types";

/** A hard stop: the host ends the run whatever the program does (it cannot catch these). */
export type StopKind = Extract<ProgramErrorKind, "timeout" | "cpu_budget" | "too_many_calls" | "output_too_large">;

/**
 * A run's CPU meter and its stop: interrupt checks and wasm fuel counted against the run's
 * budgets, the clock against its deadline, and the first limit the run hit (a stop is final).
 */
export class RunMeter {
  readonly #limits: RunLimits;
  readonly #started: number;
  #stop: { kind: StopKind; message: string; limit: string } | undefined;
  #stretchChecks = 0;
  #totalChecks = 0;
  #stretchFuel = 0;
  #totalFuel = 0;
  #meterStopped = false;
  /** Fuel handed to the wasm at the last refuel (its fuel starts at 0, so the first refuel comes at once). */
  #allowance = 0;

  constructor(limits: RunLimits, started: number) {
    this.#limits = limits;
    this.#started = started;
  }

  /** Whether the run hit a limit: it is stopping. */
  get stopping(): boolean {
    return this.#stop !== undefined;
  }

  /** Set once the fuel meter threw through the wasm: the instance must never be touched again. */
  get meterStopped(): boolean {
    return this.#meterStopped;
  }

  get totalChecks(): number {
    return this.#totalChecks;
  }

  get totalFuel(): number {
    return this.#totalFuel;
  }

  /** The program yielded to await tool results: a new synchronous stretch begins. */
  newStretch(): void {
    this.#stretchChecks = 0;
    this.#stretchFuel = 0;
  }

  /** Interrupt handler: counts, never reads a clock. True stops the program (uncatchably). */
  interrupt(): boolean {
    this.#stretchChecks++;
    this.#totalChecks++;
    if (this.#stop) return true;
    const { stretchBudget, totalBudget } = this.#limits;
    if (this.#stretchChecks > stretchBudget) {
      this.halt(
        "cpu_budget",
        `the program computed without pause for more than ${stretchBudget} interrupt checks (its CPU budget per stretch between tool calls)`,
        "stretchBudget",
      );
      return true;
    }
    if (this.#totalChecks > totalBudget) {
      this.halt("cpu_budget", `the program used more than ${totalBudget} interrupt checks in total (its CPU budget for the run)`, "totalBudget");
      return true;
    }
    return false;
  }

  /**
   * Called by the metered wasm every FUEL_ALLOWANCE units of work, whatever QuickJS is doing
   * (bytecode, inside a built-in, the regex engine, the GC). Past a limit it throws: the throw
   * unwinds the wasm, which is the only way to stop work inside one built-in call, and leaves the
   * instance in an unknown state, so it is dropped. The clock check is what bounds a run by wall
   * time where clocks advance during computation (local workerd, Node); deployed, clocks stand
   * still until I/O and the fuel counts are the bound.
   */
  refuel(fuelLeft: number): number {
    if (this.#meterStopped) stopSandbox();
    // What was spent since the last refuel: its allowance, and any debt of a charge by size.
    const spent = this.#allowance - fuelLeft;
    this.#allowance = FUEL_ALLOWANCE;
    this.#stretchFuel += spent;
    this.#totalFuel += spent;
    const { stretchFuel, totalFuel, timeoutMs } = this.#limits;
    if (Date.now() - this.#started >= timeoutMs) this.halt("timeout", this.timeoutMessage(), "timeoutMs");
    else if (this.#stretchFuel > stretchFuel) {
      this.halt(
        "cpu_budget",
        `the program computed without pause for more than ${stretchFuel} units of fuel (its CPU budget per stretch between tool calls)`,
        "stretchFuel",
      );
    } else if (this.#totalFuel > totalFuel) {
      this.halt("cpu_budget", `the program used more than ${totalFuel} units of fuel in total (its CPU budget for the run)`, "totalFuel");
    } else return FUEL_ALLOWANCE;
    this.#meterStopped = true;
    stopSandbox();
  }

  timeoutMessage(): string {
    return `the program did not finish within its deadline of ${this.#limits.timeoutMs} ms`;
  }

  /** Stop the run at a limit; the first stop is the one reported. */
  halt(kind: StopKind, message: string, limit: string): void {
    this.#stop ??= { kind, message, limit };
  }

  stopError(): ProgramError | undefined {
    return this.#stop ? { kind: this.#stop.kind, message: this.#stop.message, limit: this.#stop.limit } : undefined;
  }
}
