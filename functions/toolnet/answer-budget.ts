import type { ToolDefinition } from "../tools/definition";
import { compactView, requiredOnlyView, type CompactionRule } from "./compact-view";
import { answerPromptParts, toolListPrompt, type WeightKind } from "./answer-prompt";
import { END } from "./graph";
import type { OpenAiTool } from "./openai-tools";
import type { Why } from "./signal-fusion";
import { countJsonArrayTokens, countJsonTokens, countTokens, type CountedJson } from "./token-count";

/**
 * A routing answer within a token budget. The ranked tools are taken best first: each is shown
 * by its compact view when that fits what is left, else by its required-only view, else it is
 * named in `overBudget` with its cost, never silently dropped. The parts the caller asked for
 * (the `tools` array, the prompt block, or both) are then counted exactly (o200k_base, the JSON
 * text a client sends; the array from the views' stored counts, token-count.ts) and the
 * lowest-ranked shown tool gives way until the total is within the budget, so the reported counts
 * are those of exactly what is returned and never exceed it.
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
export const TOOL_VIEWS_VERSION = 4;

/** The service default: a k = 8 answer stays within it (README: answer-tokens benchmark). */
export const DEFAULT_MAX_TOKENS = 2_000;

/**
 * What an answer returns: `tools`, the OpenAI `tools` array (compact views) a chat-completions
 * caller passes on; `prompt`, ToolNet's prompt block (with `tools`: the weights in the array's
 * order; alone: the paper's eq. 4 list naming and describing each tool).
 */
export const ANSWER_PARTS = ["tools", "prompt"] as const;
export type AnswerPart = (typeof ANSWER_PARTS)[number];
/** What a chat-completions caller needs: the `tools` array (its order is the ranking). */
export const DEFAULT_ANSWER_PARTS: readonly AnswerPart[] = ["tools"];

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
  /** Which view the `tools` array shows; absent for Finish and when `tools` is not returned. */
  view?: "compact" | "required-only";
  /** Tokens of its `tools` entry (without `tools`: of its line in the prompt block). */
  tokens?: number;
  why?: Why;
}

export interface OverBudgetTool {
  name: string;
  weight: number;
  /** Tokens of its compact view, and of its required-only view (the least it could take); without `tools`, of its prompt line. */
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
  /** Present when asked for (`include`). */
  prompt?: string;
  /** Present when asked for (`include`; the default). */
  tools?: OpenAiTool[];
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
  /** The parts to return; default DEFAULT_ANSWER_PARTS. */
  include?: readonly AnswerPart[];
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
  const include = new Set(input.include ?? DEFAULT_ANSWER_PARTS);
  const prompt = promptShape(input, include);
  const withTools = include.has("tools");
  const count = input.count ?? countTokens;
  const max = input.maxTokens;
  // What every answer pays whatever it shows: the prompt block without tools, an empty array.
  const fixed = prompt.render([]).tokens + (withTools ? count("[]") : 0);
  if (fixed > max) {
    return { ok: false, minimum: fixed, message: `maxTokens ${max} is below what any answer here costs: ${fixedParts(include)} take ${fixed} tokens.` };
  }

  const shown: Shown[] = [];
  let left = max - fixed;
  input.ranked.forEach((candidate, index) => {
    const views = candidate.views;
    if (views === undefined) return;
    // Its place in the prompt block and the join between tools entries: estimated here, exact in
    // the final count below.
    const marginal = prompt.marginal(candidate, shown.length) + (withTools ? 1 : 0);
    if (!withTools) {
      if (marginal > left) return;
      shown.push({ index, candidate, view: "compact" });
      left -= marginal;
    } else if (views.compactTokens + marginal <= left) {
      shown.push({ index, candidate, view: "compact" });
      left -= views.compactTokens + marginal;
    } else if (views.requiredOnlyTokens + marginal <= left) {
      shown.push({ index, candidate, view: "required-only" });
      left -= views.requiredOnlyTokens + marginal;
    }
  });

  const assemble = () => {
    const block = prompt.render(shown);
    const views = withTools ? shown.map(shownView) : [];
    const tools = !withTools ? 0 : input.count === undefined ? countJsonArrayTokens(views.map((v) => v.entry)) : count(JSON.stringify(views.map((v) => v.tool)));
    return { block, tools: views.map((v) => v.tool), toolsTokens: tools, total: block.tokens + tools };
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
    overBudget.push(withTools ? overBudgetTool(candidate, views, prompt, max) : overBudgetLine(candidate, prompt, max));
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
    const shownAs = withTools
      ? { view: entry.view, tokens: entry.view === "compact" ? views.compactTokens : views.requiredOnlyTokens }
      : { tokens: prompt.lineTokens(candidate) };
    candidates.push({ name: candidate.tool, weight: candidate.weight, description: candidate.description, ...shownAs, ...why });
  });
  return {
    ok: true,
    answer: {
      candidates,
      ...(include.has("prompt") ? { prompt: assembled.block.text } : {}),
      ...(withTools ? { tools: assembled.tools } : {}),
      overBudget,
      tokens: { prompt: assembled.block.tokens, tools: assembled.toolsTokens, total: assembled.total, budget: max },
    },
  };
}

function fixedParts(include: ReadonlySet<AnswerPart>): string {
  if (!include.has("prompt")) return "an empty tools array";
  return include.has("tools") ? "the prompt block and an empty tools array" : "the prompt block without tools";
}

/** The prompt block an answer returns (none, weights next to `tools`, or the eq. 4 list) and what it costs. */
interface PromptShape {
  /** The block for the tools shown, with its exact token count. */
  render(shown: readonly Shown[]): { text: string; tokens: number };
  /** Estimated tokens the block grows by when `candidate` is shown after `before` others. */
  marginal(candidate: RankedCandidate, before: number): number;
  /** Tokens of `candidate`'s own part of the block shown alone (0 when the block names no tool). */
  lineTokens(candidate: RankedCandidate): number;
  /** Tokens of the block with only `candidate` shown. */
  aloneTokens(candidate: RankedCandidate): number;
}

function promptShape(input: BudgetInput, include: ReadonlySet<AnswerPart>): PromptShape {
  const count = input.count ?? countTokens;
  const weights = input.weights ?? "transitions";
  const finish = input.ranked.find((c) => c.tool === END);
  if (!include.has("prompt")) {
    return { render: () => ({ text: "", tokens: 0 }), marginal: () => 0, lineTokens: () => 0, aloneTokens: () => 0 };
  }
  if (include.has("tools")) {
    const partsFor = (toolWeights: readonly number[]): string[] => answerPromptParts({ previous: input.previous, toolWeights, finishWeight: finish?.weight, weights });
    const partsTokens = (parts: readonly string[]): number => (input.count === undefined ? parts.reduce((sum, part) => sum + count(part), 0) : count(parts.join("")));
    return {
      render: (shown) => {
        const parts = partsFor(shown.map((s) => s.candidate.weight));
        return { text: parts.join(""), tokens: partsTokens(parts) };
      },
      marginal: (candidate) => count(`, ${candidate.weight}`),
      lineTokens: () => 0,
      aloneTokens: (candidate) => partsTokens(partsFor([candidate.weight])),
    };
  }
  // Without `tools`: the eq. 4 list, each tool on its own line with its one-line description.
  const listed = (candidates: readonly RankedCandidate[]) => [...candidates, ...(finish === undefined ? [] : [finish])];
  const block = (candidates: readonly RankedCandidate[]) => {
    const text = toolListPrompt(input.previous, listed(candidates), weights);
    return { text, tokens: count(text) };
  };
  const line = (candidate: RankedCandidate, position: number) => count(`${position}. ${candidate.tool} (weight ${candidate.weight}): ${candidate.description}\n`);
  return {
    render: (shown) => block(shown.map((s) => s.candidate)),
    marginal: (candidate, before) => line(candidate, before + 1),
    lineTokens: (candidate) => line(candidate, 1),
    aloneTokens: (candidate) => block([candidate]).tokens,
  };
}

/** A tool left out of an answer with `tools`: its views' costs, and whether it could fit at all. */
function overBudgetTool(candidate: RankedCandidate, views: ToolViews, prompt: PromptShape, max: number): OverBudgetTool {
  const alone = prompt.aloneTokens(candidate) + countJsonArrayTokens([counted(views.requiredOnly, views.requiredOnlyTokens)]);
  const tooBig = alone > max;
  return {
    name: candidate.tool,
    weight: candidate.weight,
    tokens: views.compactTokens,
    requiredOnlyTokens: views.requiredOnlyTokens,
    reason: tooBig ? "required-parameters-exceed-budget" : "budget",
    message: tooBig
      ? `${candidate.tool}: its required parameters alone take ${views.requiredOnlyTokens} tokens; an answer showing only this tool needs maxTokens ≥ ${alone}, more than ${max}. Its full definition is at GET /v1/tools/${candidate.tool}.`
      : `${candidate.tool} needs ${views.compactTokens} tokens (${views.requiredOnlyTokens} with required parameters only); the tools ranked above it left too little of maxTokens ${max}.`,
  };
}

/** A tool left out of a prompt-only answer: the cost of its line. */
function overBudgetLine(candidate: RankedCandidate, prompt: PromptShape, max: number): OverBudgetTool {
  const tokens = prompt.lineTokens(candidate);
  return {
    name: candidate.tool,
    weight: candidate.weight,
    tokens,
    requiredOnlyTokens: tokens,
    reason: "budget",
    message: `${candidate.tool} needs ${tokens} tokens for its line of the prompt block; the tools ranked above it left too little of maxTokens ${max}.`,
  };
}
