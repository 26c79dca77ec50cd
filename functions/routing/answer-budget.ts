import type { ToolDefinition } from "../tools/definition";
import { compactView, requiredOnlyView, type CompactionRule } from "./compact-view";
import { END, formatPromptBlock } from "./graph";
import type { OpenAiTool } from "./openai-tools";
import type { Why } from "./signal-fusion";
import { countJsonTokens, countTokens } from "./token-count";

/**
 * A routing answer within a token budget. The ranked tools are taken best first: each is shown
 * by its compact view when that fits what is left, else by its required-only view, else it is
 * named in `overBudget` with its cost, never silently dropped. The prompt block and the `tools`
 * array that come out are then counted exactly (o200k_base, the JSON text a client sends) and the
 * lowest-ranked shown tool gives way until the total is within the budget, so the reported counts
 * are the real ones and never exceed it.
 */

/** The two stored views of a tool and their token counts (JSON text of each `tools` entry). */
export interface ToolViews {
  compact: OpenAiTool;
  compactTokens: number;
  requiredOnly: OpenAiTool;
  requiredOnlyTokens: number;
}

/** The service default: a k = 8 answer stays within it (README: answer-tokens benchmark). */
export const DEFAULT_MAX_TOKENS = 2_000;

/** Both views of a tool, counted; computed when a tool is registered or changed, then stored. */
export function toolViews(def: ToolDefinition): ToolViews & { rules: CompactionRule[] } {
  const compact = compactView(def);
  const requiredOnly = requiredOnlyView(def).tool;
  return { compact: compact.tool, compactTokens: countJsonTokens(compact.tool), requiredOnly, requiredOnlyTokens: countJsonTokens(requiredOnly), rules: compact.rules };
}

/** One ranked candidate, best first. END (the Finish action) has no views. */
export interface RankedCandidate {
  tool: string;
  weight: number;
  /** One-line description for the answer's `candidates` list (not counted: not for the model). */
  description: string;
  views?: ToolViews;
  /** Fused routing: the signals that ranked it, passed through to the answer. */
  why?: Why;
}

export interface AnswerCandidate {
  name: string;
  weight: number;
  description: string;
  /** Which view the `tools` array shows; absent for Finish. */
  view?: "compact" | "required-only";
  /** Tokens of its `tools` entry. */
  tokens?: number;
  why?: Why;
}

export interface OverBudgetTool {
  name: string;
  weight: number;
  /** Tokens of its compact view, and of its required-only view (the least it could take). */
  tokens: number;
  requiredOnlyTokens: number;
  reason: "budget" | "required-parameters-exceed-budget";
  message: string;
}

export interface AnswerTokens {
  prompt: number;
  tools: number;
  total: number;
  budget: number;
}

export interface BudgetedAnswer {
  candidates: AnswerCandidate[];
  prompt: string;
  tools: OpenAiTool[];
  overBudget: OverBudgetTool[];
  tokens: AnswerTokens;
}

export type BudgetOutcome = { ok: true; answer: BudgetedAnswer } | { ok: false; minimum: number; message: string };

export interface BudgetInput {
  /** The tool used last, or START. */
  previous: string;
  ranked: readonly RankedCandidate[];
  maxTokens: number;
  /** What the weights mean when they are not eq. 6 transition weights alone (fused routing). */
  weightNote?: string;
  /** The tokenizer; o200k_base unless a test brings its own. */
  count?: (text: string) => number;
}

const FINISH = "Finish";
const FINISH_DESCRIPTION = "Stop and answer.";

interface Shown {
  index: number;
  candidate: RankedCandidate;
  view: "compact" | "required-only";
}

/**
 * The prompt block in ToolNet's format: names and weights. Descriptions are not repeated there:
 * the same answer's `tools` array carries them, and a budget should pay for them once.
 */
function promptFor(previous: string, shown: readonly { tool: string; weight: number }[], weightNote?: string): string {
  return formatPromptBlock({ previous, candidates: shown.map((c) => ({ tool: c.tool, weight: c.weight, exact: c.weight / 1000 })), ...(weightNote === undefined ? {} : { weightNote }) });
}

/** Fit ranked candidates into `maxTokens`; see the file comment. */
export function fitToBudget(input: BudgetInput): BudgetOutcome {
  const count = input.count ?? countTokens;
  const max = input.maxTokens;
  const ends = input.ranked.filter((c) => c.views === undefined);
  // What every answer pays whatever it shows: header, footer, Finish, an empty tools array.
  const fixed = count(promptFor(input.previous, ends, input.weightNote)) + count("[]");
  if (fixed > max) {
    return { ok: false, minimum: fixed, message: `maxTokens ${max} is below what any answer here costs: the prompt block's header and footer and an empty tools array take ${fixed} tokens.` };
  }

  const shown: Shown[] = [];
  let left = max - fixed;
  input.ranked.forEach((candidate, index) => {
    const views = candidate.views;
    if (views === undefined) return;
    // A prompt line ("3. name (weight 812)") and a comma between tools entries: estimated here,
    // exact in the final count below.
    const marginal = count(`${index + 1}. ${candidate.tool} (weight ${candidate.weight})\n`) + (shown.length > 0 ? 1 : 0);
    if (views.compactTokens + marginal <= left) {
      shown.push({ index, candidate, view: "compact" });
      left -= views.compactTokens + marginal;
    } else if (views.requiredOnlyTokens + marginal <= left) {
      shown.push({ index, candidate, view: "required-only" });
      left -= views.requiredOnlyTokens + marginal;
    }
  });

  let assembled = assemble(input.previous, input.ranked, shown, count, input.weightNote);
  while (assembled.total > max && shown.length > 0) {
    shown.pop();
    assembled = assemble(input.previous, input.ranked, shown, count, input.weightNote);
  }

  const shownIndexes = new Set(shown.map((s) => s.index));
  const overBudget: OverBudgetTool[] = [];
  input.ranked.forEach((candidate, index) => {
    const views = candidate.views;
    if (views === undefined || shownIndexes.has(index)) return;
    const alone = fixed + count(`1. ${candidate.tool} (weight ${candidate.weight})\n`) + views.requiredOnlyTokens;
    const tooBig = alone > max;
    overBudget.push({
      name: candidate.tool,
      weight: candidate.weight,
      tokens: views.compactTokens,
      requiredOnlyTokens: views.requiredOnlyTokens,
      reason: tooBig ? "required-parameters-exceed-budget" : "budget",
      message: tooBig
        ? `${candidate.tool}: its required parameters alone take ${views.requiredOnlyTokens} tokens; an answer showing only this tool needs maxTokens ≥ ${alone}, more than ${max}. Its full definition is at GET /v1/tools/${candidate.tool}.`
        : `${candidate.tool} needs ${views.compactTokens} tokens (${views.requiredOnlyTokens} with required parameters only); the tools ranked above it left too little of maxTokens ${max}.`,
    });
  });

  const candidates: AnswerCandidate[] = [];
  input.ranked.forEach((candidate, index) => {
    if (candidate.views === undefined) {
      const end = candidate.tool === END;
      candidates.push({ name: end ? FINISH : candidate.tool, weight: candidate.weight, description: end ? FINISH_DESCRIPTION : candidate.description, ...(candidate.why === undefined ? {} : { why: candidate.why }) });
      return;
    }
    const entry = shown.find((s) => s.index === index);
    if (entry === undefined) return;
    const views = candidate.views;
    candidates.push({
      name: candidate.tool,
      weight: candidate.weight,
      description: candidate.description,
      view: entry.view,
      tokens: entry.view === "compact" ? views.compactTokens : views.requiredOnlyTokens,
      ...(candidate.why === undefined ? {} : { why: candidate.why }),
    });
  });
  return {
    ok: true,
    answer: {
      candidates,
      prompt: assembled.prompt,
      tools: assembled.tools,
      overBudget,
      tokens: { prompt: assembled.promptTokens, tools: assembled.toolsTokens, total: assembled.total, budget: max },
    },
  };
}

function assemble(previous: string, ranked: readonly RankedCandidate[], shown: readonly Shown[], count: (text: string) => number, weightNote?: string) {
  const indexes = new Set(shown.map((s) => s.index));
  const inPrompt = ranked.filter((c, index) => c.views === undefined || indexes.has(index));
  const prompt = promptFor(previous, inPrompt, weightNote);
  const tools = shown.map((s) => (s.view === "compact" ? s.candidate.views?.compact : s.candidate.views?.requiredOnly)).filter((t): t is OpenAiTool => t !== undefined);
  const promptTokens = count(prompt);
  const toolsTokens = count(JSON.stringify(tools));
  return { prompt, tools, promptTokens, toolsTokens, total: promptTokens + toolsTokens };
}
