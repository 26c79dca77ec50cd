import { z } from "zod";
import { Failure, isFailure } from "../common/failures";
import type { ChatMessage } from "../llm/client";
import type { TokenUsage } from "../llm/usage";
import type { BudgetLimits } from "./settings";

/**
 * The limits of one Play2Prompt job. Every model call is checked before it is made and charged
 * after, so once a limit is reached no further call happens; the searches notice at their next
 * step boundary and return the best they have. A call can overshoot the token limit (its size is
 * only known afterwards); it is still the last one.
 */

export const UsageCountsSchema = z.object({
  calls: z.number().int().nonnegative(),
  promptTokens: z.number().nonnegative(),
  completionTokens: z.number().nonnegative(),
  totalTokens: z.number().nonnegative(),
});
export type UsageCounts = z.infer<typeof UsageCountsSchema>;

export const BudgetUsageSchema = UsageCountsSchema.extend({ byPurpose: z.record(z.string(), UsageCountsSchema) });
/** What a job spent: calls and tokens in total and per purpose. */
export type BudgetUsage = z.infer<typeof BudgetUsageSchema>;

/**
 * Thrown by `Budget.check` (and so by budgeted calls) once a limit is reached: a Failure of code
 * `budget_exhausted`, which the searches catch to stop cleanly (`isBudgetExhausted`).
 */
export function budgetExhausted(by: "calls" | "tokens"): Failure {
  return Failure.of("budget_exhausted", `the job's ${by === "calls" ? "model-call" : "token"} budget is exhausted`);
}

/** Whether `error` is the budget's signal to stop. */
export function isBudgetExhausted(error: unknown): boolean {
  return isFailure(error, "budget_exhausted");
}

function emptyCounts(): UsageCounts {
  return { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 };
}

function addCounts(a: UsageCounts, usage: TokenUsage, calls: number): UsageCounts {
  return {
    calls: a.calls + calls,
    promptTokens: a.promptTokens + usage.promptTokens,
    completionTokens: a.completionTokens + usage.completionTokens,
    totalTokens: a.totalTokens + usage.totalTokens,
  };
}

export class Budget {
  readonly limits: BudgetLimits;
  readonly #parent: Budget | undefined;
  #total: UsageCounts;
  // A Map, then fromEntries: purposes are caller text and "__proto__" must stay a plain key.
  #byPurpose: Map<string, UsageCounts>;

  /** A budget with these limits; `spent` restores a checkpointed job's usage. */
  constructor(limits: BudgetLimits, spent?: BudgetUsage, parent?: Budget) {
    this.limits = { ...limits };
    this.#parent = parent;
    this.#total =
      spent === undefined
        ? emptyCounts()
        : { calls: spent.calls, promptTokens: spent.promptTokens, completionTokens: spent.completionTokens, totalTokens: spent.totalTokens };
    this.#byPurpose = new Map(Object.entries(spent?.byPurpose ?? {}).map(([k, v]) => [k, { ...v }]));
  }

  /** A sub-budget for one phase: it has its own limits, and every charge also reaches this budget. */
  phase(limits: BudgetLimits, spent?: BudgetUsage): Budget {
    return new Budget(limits, spent, this);
  }

  /** Which limit is reached, here or in the enclosing budget; undefined while calls may be made. */
  get exhaustedBy(): "calls" | "tokens" | undefined {
    if (this.#total.calls >= this.limits.maxModelCalls) return "calls";
    if (this.#total.totalTokens >= this.limits.maxTokens) return "tokens";
    return this.#parent?.exhaustedBy;
  }

  /** True once no further model call may be made. */
  get exhausted(): boolean {
    return this.exhaustedBy !== undefined;
  }

  /** Throw `budgetExhausted` when no further call may be made: call it before every model call. */
  check(): void {
    const by = this.exhaustedBy;
    if (by !== undefined) throw budgetExhausted(by);
  }

  /** Record a call's usage (here and in the enclosing budget). */
  charge(purpose: string, usage: TokenUsage, calls = 1): void {
    this.#total = addCounts(this.#total, usage, calls);
    this.#byPurpose.set(purpose, addCounts(this.#byPurpose.get(purpose) ?? emptyCounts(), usage, calls));
    this.#parent?.charge(purpose, usage, calls);
  }

  /** Calls and tokens still available under this budget's own limits. */
  remaining(): { modelCalls: number; tokens: number } {
    return { modelCalls: Math.max(0, this.limits.maxModelCalls - this.#total.calls), tokens: Math.max(0, this.limits.maxTokens - this.#total.totalTokens) };
  }

  /** Plain data for reports and checkpoints. */
  usage(): BudgetUsage {
    return { ...this.#total, byPurpose: Object.fromEntries([...this.#byPurpose].map(([k, v]) => [k, { ...v }])) };
  }
}

export interface ModelTurn {
  content: string;
  usage: TokenUsage;
  durationMs: number;
}

export type ChatFunction<P extends string> = (messages: ChatMessage[], purpose: P) => Promise<ModelTurn>;

/** A chat function that checks the budget before and charges it after every call, returning the text. */
export function budgetedChat<P extends string>(chat: ChatFunction<P>, budget: Budget): (messages: ChatMessage[], purpose: P) => Promise<string> {
  return async (messages, purpose) => {
    budget.check();
    const turn = await chat(messages, purpose);
    budget.charge(purpose, turn.usage);
    return turn.content;
  };
}
