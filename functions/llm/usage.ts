/**
 * Token accounting: jobs and runs report "token usage per model call and in total";
 * a UsageLedger collects one entry per HTTP call to the model endpoint.
 */

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export const ZERO_USAGE: Readonly<TokenUsage> = Object.freeze({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

export interface UsageEntry {
  /** 1-based order of the call within this ledger. */
  seq: number;
  operation: "chat" | "embed";
  purpose: string;
  model: string;
  ok: boolean;
  /** The model call's failure kind (llm/errors.ts) when the call failed. */
  errorKind?: string;
  usage: TokenUsage;
  durationMs: number;
}

export interface UsageTotals extends TokenUsage {
  calls: number;
  failedCalls: number;
}

export interface UsageSummary {
  total: UsageTotals;
  byPurpose: Record<string, UsageTotals>;
  calls: UsageEntry[];
}

function emptyTotals(): UsageTotals {
  return { calls: 0, failedCalls: 0, ...ZERO_USAGE };
}

function accumulate(totals: UsageTotals, entry: UsageEntry): UsageTotals {
  return {
    ...addUsage(totals, entry.usage),
    calls: totals.calls + 1,
    failedCalls: totals.failedCalls + (entry.ok ? 0 : 1),
  };
}

export class UsageLedger {
  #entries: UsageEntry[] = [];
  #total: UsageTotals = emptyTotals();

  record(entry: Omit<UsageEntry, "seq">): UsageEntry {
    const full: UsageEntry = { ...entry, usage: { ...entry.usage }, seq: this.#entries.length + 1 };
    this.#entries.push(full);
    this.#total = accumulate(this.#total, full);
    return full;
  }

  get entries(): readonly UsageEntry[] {
    return this.#entries;
  }

  get total(): UsageTotals {
    return { ...this.#total };
  }

  byPurpose(): Record<string, UsageTotals> {
    // A Map, then fromEntries: purposes are caller text and "__proto__" must stay a plain key.
    const totals = new Map<string, UsageTotals>();
    for (const entry of this.#entries) {
      totals.set(entry.purpose, accumulate(totals.get(entry.purpose) ?? emptyTotals(), entry));
    }
    return Object.fromEntries(totals);
  }

  /** Plain data for job reports and storage. */
  summary(): UsageSummary {
    return {
      total: this.total,
      byPurpose: this.byPurpose(),
      calls: this.#entries.map((e) => ({ ...e, usage: { ...e.usage } })),
    };
  }

  toJSON(): UsageSummary {
    return this.summary();
  }
}
