import type { ToolDefinition } from "../tools/definition";
import { compactView, requiredOnlyView, type CompactionRule } from "./compact-view";
import { answerPromptParts, type WeightKind } from "./answer-prompt";
import { END } from "./graph";
import type { OpenAiTool } from "./openai-tools";
import type { Why } from "./signal-fusion";
import { countJsonArrayTokens, countJsonTokens, countTokens, type CountedJson } from "./token-count";

/**
 * A routing answer within a token budget. The ranked tools are taken best first: each is shown
 * by its compact view when that fits what is left, else by its required-only view, else it is
 * named in `overBudget` with its cost, never silently dropped. The prompt block and the `tools`
 * array that come out are then counted exactly (o200k_base, the JSON text a client sends; the
 * array from the views' stored counts, token-count.ts) and the lowest-ranked shown tool gives
 * way until the total is within the budget, so the reported counts are the real ones and never
 * exceed it.
 */

/** The two stored views of a tool and their token counts (JSON text of each `tools` entry). */
export interface ToolViews {
  compact: OpenAiTool;
  compactTokens: number;
  requiredOnly: OpenAiTool;
  requiredOnlyTokens: number;
}

/**
 * The version of the compaction rules and limits (compact-view.ts) the views are made by: bump it
 * whenever a rule or limit changes, so that stored views made by older rules are recomputed.
 */
export const TOOL_VIEWS_VERSION = 2;

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
  /** What the weights were made from (the prompt block says so); default eq. 6 transitions. */
  weights?: WeightKind;
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

/** A view with its JSON text, made once per view object (stored views are kept in memory). */
const countedViews = new WeakMap<OpenAiTool, CountedJson>();

function counted(tool: OpenAiTool, tokens: number): CountedJson {
  let entry = countedViews.get(tool);
  if (entry === undefined) countedViews.set(tool, (entry = { json: JSON.stringify(tool), tokens }));
  return entry;
}

function shownView(s: Shown): { tool: OpenAiTool; entry: CountedJson } {
  const views = s.candidate.views as ToolViews;
  const tool = s.view === "compact" ? views.compact : views.requiredOnly;
  return { tool, entry: counted(tool, s.view === "compact" ? views.compactTokens : views.requiredOnlyTokens) };
}

/** Fit ranked candidates into `maxTokens`; see the file comment. */
export function fitToBudget(input: BudgetInput): BudgetOutcome {
  const count = input.count ?? countTokens;
  const max = input.maxTokens;
  const finishWeight = input.ranked.find((c) => c.tool === END)?.weight;
  const partsFor = (toolWeights: readonly number[]): string[] => answerPromptParts({ previous: input.previous, toolWeights, finishWeight, weights: input.weights ?? "transitions" });
  const promptTokens = (parts: readonly string[]): number => parts.reduce((sum, part) => sum + count(part), 0);
  // What every answer pays whatever it shows: the prompt block's sentences, Finish, an empty array.
  const fixed = promptTokens(partsFor([])) + count("[]");
  if (fixed > max) {
    return { ok: false, minimum: fixed, message: `maxTokens ${max} is below what any answer here costs: the prompt block and an empty tools array take ${fixed} tokens.` };
  }

  const shown: Shown[] = [];
  let left = max - fixed;
  input.ranked.forEach((candidate, index) => {
    const views = candidate.views;
    if (views === undefined) return;
    // Its weight in the prompt block and the join between tools entries: estimated here, exact
    // in the final count below.
    const marginal = count(`, ${candidate.weight}`) + 1;
    if (views.compactTokens + marginal <= left) {
      shown.push({ index, candidate, view: "compact" });
      left -= views.compactTokens + marginal;
    } else if (views.requiredOnlyTokens + marginal <= left) {
      shown.push({ index, candidate, view: "required-only" });
      left -= views.requiredOnlyTokens + marginal;
    }
  });

  const assemble = () => {
    const parts = partsFor(shown.map((s) => s.candidate.weight));
    const views = shown.map(shownView);
    const prompt = input.count === undefined ? promptTokens(parts) : count(parts.join(""));
    const tools = input.count === undefined ? countJsonArrayTokens(views.map((v) => v.entry)) : count(JSON.stringify(views.map((v) => v.tool)));
    return { prompt: parts.join(""), tools: views.map((v) => v.tool), promptTokens: prompt, toolsTokens: tools, total: prompt + tools };
  };
  let assembled = assemble();
  while (assembled.total > max && shown.length > 0) {
    shown.pop();
    assembled = assemble();
  }

  const shownIndexes = new Map(shown.map((s) => [s.index, s]));
  const overBudget: OverBudgetTool[] = [];
  input.ranked.forEach((candidate, index) => {
    const views = candidate.views;
    if (views === undefined || shownIndexes.has(index)) return;
    const alone = promptTokens(partsFor([candidate.weight])) + countJsonArrayTokens([counted(views.requiredOnly, views.requiredOnlyTokens)]);
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
    const why = candidate.why === undefined ? {} : { why: candidate.why };
    if (candidate.views === undefined) {
      const end = candidate.tool === END;
      candidates.push({ name: end ? FINISH : candidate.tool, weight: candidate.weight, description: end ? FINISH_DESCRIPTION : candidate.description, ...why });
      return;
    }
    const entry = shownIndexes.get(index);
    if (entry === undefined) return;
    const views = candidate.views;
    const tokens = entry.view === "compact" ? views.compactTokens : views.requiredOnlyTokens;
    candidates.push({ name: candidate.tool, weight: candidate.weight, description: candidate.description, view: entry.view, tokens, ...why });
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
