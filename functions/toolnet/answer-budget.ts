import type { ToolDefinition } from "../tools/definition";
import { compactView, requiredOnlyView, type CompactionRule } from "./compact-view";
import { answerPromptParts, toolListPrompt, type WeightKind } from "./answer-prompt";
import { END } from "./graph";
import type { OpenAiTool } from "./openai-tools";
import type { Why } from "./signal-fusion";
import { countJsonArrayTokens, countTokens, type CountedJson } from "../text/token-count";

/**
 * A routing answer within a token budget. The ranked tools are taken best first: each is shown
 * by its compact view when that fits what is left, else by its required-only view, else it is
 * named in `overBudget` with its cost, never silently dropped. The parts the caller asked for
 * (the `tools` array, the prompt block, or both) are then counted exactly (o200k_base, the JSON
 * text a client sends; the array from the views' stored counts, text/token-count.ts) and the
 * lowest-ranked shown tool gives way until the total is within the budget, so the reported counts
 * are those of exactly what is returned and never exceed it.
 */

/** The two stored views of a tool and their token counts (JSON text of each `tools` entry). */
export interface ToolViews {
  compact: OpenAiTool;
  compactTokens: number;
  requiredOnly: OpenAiTool;
  requiredOnlyTokens: number;
  /** Each view's JSON text, when the caller has it (stored views): an answer uses it as it is. */
  compactJson?: string;
  requiredOnlyJson?: string;
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
export function toolViews(def: ToolDefinition): Required<ToolViews> & { rules: CompactionRule[] } {
  const compact = compactView(def);
  const requiredOnly = requiredOnlyView(def).tool;
  const compactJson = JSON.stringify(compact.tool);
  const requiredOnlyJson = JSON.stringify(requiredOnly);
  return {
    compact: compact.tool,
    compactTokens: countTokens(compactJson),
    requiredOnly,
    requiredOnlyTokens: countTokens(requiredOnlyJson),
    compactJson,
    requiredOnlyJson,
    rules: compact.rules,
  };
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

/** `Tool`: each `tools` entry as an object, or as a `ShownEntry` (its JSON text, the object on demand). */
export interface BudgetedAnswer<Tool = OpenAiTool> {
  candidates: AnswerCandidate[];
  /** Present when asked for (`include`). */
  prompt?: string;
  /** Present when asked for (`include`; the default). */
  tools?: Tool[];
  overBudget: OverBudgetTool[];
  tokens: AnswerTokens;
}

export type BudgetOutcome<Tool = OpenAiTool> = { ok: true; answer: BudgetedAnswer<Tool> } | { ok: false; minimum: number; message: string };

/** A `tools` entry of an answer: its JSON text and tokens, and the view itself (parsed on demand for stored views). */
export interface ShownEntry extends CountedJson {
  tool(): OpenAiTool;
}

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

/**
 * Each view as a `tools` entry, made once per views object (stored views are kept in memory): its
 * JSON text is the stored one when there is one, else the view serialised once.
 */
const entriesOf = new WeakMap<ToolViews, { compact?: ShownEntry; "required-only"?: ShownEntry }>();

function shownEntry(views: ToolViews, view: Shown["view"]): ShownEntry {
  let entries = entriesOf.get(views);
  if (entries === undefined) entriesOf.set(views, (entries = {}));
  let entry = entries[view];
  if (entry === undefined) {
    const compact = view === "compact";
    const json = (compact ? views.compactJson : views.requiredOnlyJson) ?? JSON.stringify(compact ? views.compact : views.requiredOnly);
    entries[view] = entry = {
      json,
      tokens: compact ? views.compactTokens : views.requiredOnlyTokens,
      tool: () => (compact ? views.compact : views.requiredOnly),
    };
  }
  return entry;
}

function shownView(s: Shown): ShownEntry {
  return shownEntry(s.candidate.views as ToolViews, s.view);
}

/** Fit ranked candidates into `maxTokens`; see the file comment. */
export function fitToBudget(input: BudgetInput): BudgetOutcome {
  const fitted = fitToBudgetAsEntries(input);
  return fitted.ok ? { ok: true, answer: withToolObjects(fitted.answer) } : fitted;
}

/** An answer with its `tools` entries as the views themselves, in their place among its keys (its JSON text's order). */
export function withToolObjects<A extends { tools?: readonly ShownEntry[] }>(answer: A): Omit<A, "tools"> & { tools?: OpenAiTool[] } {
  const { tools, ...withoutTools } = answer;
  return tools === undefined ? withoutTools : { ...answer, tools: tools.map((entry) => entry.tool()) };
}

/**
 * `fitToBudget`, with the `tools` entries as their JSON text (the objects on demand): an answer
 * sent as JSON text splices them in (`answerJson`) instead of parsing stored views to serialise
 * them again.
 */
export function fitToBudgetAsEntries(input: BudgetInput): BudgetOutcome<ShownEntry> {
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
    const entries = withTools ? shown.map(shownView) : [];
    const tools = !withTools ? 0 : input.count === undefined ? countJsonArrayTokens(entries) : count(arrayJson(entries));
    return { block, tools: entries, toolsTokens: tools, total: block.tokens + tools };
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

/** The JSON text of an array of entries (`JSON.stringify` of their values). */
function arrayJson(entries: readonly CountedJson[]): string {
  return `[${entries.map((entry) => entry.json).join(",")}]`;
}

/**
 * `JSON.stringify(answer)` with its `tools` entries as their values, byte for byte, from the
 * entries' JSON text. A key holding a string no other value can serialise to (JSON escapes its
 * control characters) keeps the array's place among the answer's keys; the array's text replaces it.
 */
export function answerJson<A extends { tools?: readonly CountedJson[] }>(answer: A): string {
  if (answer.tools === undefined) return JSON.stringify(answer);
  const placeholder = JSON.stringify(TOOLS_PLACEHOLDER);
  const text = JSON.stringify({ ...answer, tools: TOOLS_PLACEHOLDER });
  const at = text.indexOf(`"tools":${placeholder}`) + '"tools":'.length;
  return text.slice(0, at) + arrayJson(answer.tools) + text.slice(at + placeholder.length);
}

const TOOLS_PLACEHOLDER = "\u0000tools\u0000";

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
    const partsFor = (toolWeights: readonly number[]): string[] =>
      answerPromptParts({ previous: input.previous, toolWeights, finishWeight: finish?.weight, weights });
    const partsTokens = (parts: readonly string[]): number =>
      input.count === undefined ? parts.reduce((sum, part) => sum + count(part), 0) : count(parts.join(""));
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
  const line = (candidate: RankedCandidate, position: number) =>
    count(`${position}. ${candidate.tool} (weight ${candidate.weight}): ${candidate.description}\n`);
  return {
    render: (shown) => block(shown.map((s) => s.candidate)),
    marginal: (candidate, before) => line(candidate, before + 1),
    lineTokens: (candidate) => line(candidate, 1),
    aloneTokens: (candidate) => block([candidate]).tokens,
  };
}

/** A tool left out of an answer with `tools`: its views' costs, and whether it could fit at all. */
function overBudgetTool(candidate: RankedCandidate, views: ToolViews, prompt: PromptShape, max: number): OverBudgetTool {
  const alone = prompt.aloneTokens(candidate) + countJsonArrayTokens([shownEntry(views, "required-only")]);
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
