/** A ranked list answered locally as the service answered it in each earlier form: full definitions, views with and without each rule, within the budget. */
import { DEFAULT_MAX_TOKENS, fitToBudget, toolViews, type AnswerPart, type BudgetedAnswer, type ToolViews } from "../../../functions/toolnet/answer-budget";
import { COMPACT_LIMITS, compactView, isRequired, REQUIRED_ONLY_LIMITS, requiredOnlyView, type OptionalRule } from "../../../functions/toolnet/compact-view";
import { formatPromptBlock } from "../../../functions/toolnet/graph";
import { openAiTool, type OpenAiTool } from "../../../functions/toolnet/openai-tools";
import type { ToolDefinition } from "../../../functions/tools/definition";
import type { Cell, Ranked } from "./cell";
import { tokens } from "./tokens";

/** The one-line description routing put in the prompt block before compact views. */
export function oldShortDescription(def: ToolDefinition | undefined): string {
  const text = (def?.summary ?? def?.description ?? "").replace(/\s+/g, " ").trim();
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

/** The answer as the service built it before compact views (route() in tenant-routing.ts then). */
export function fullAnswer(
  ranked: readonly { tool: string; weight: number }[],
  previous: string,
  defs: ReadonlyMap<string, ToolDefinition>,
): { prompt: string; tools: OpenAiTool[] } {
  const prompt = formatPromptBlock({
    previous,
    candidates: ranked.map((r) => ({ ...r, exact: r.weight / 1000 })),
    describe: (tool) => oldShortDescription(defs.get(tool)),
  });
  const tools = ranked.flatMap((r) => {
    const def = defs.get(r.tool);
    return def === undefined ? [] : [openAiTool(def)];
  });
  return { prompt, tools };
}

/** The views a tool had at this branch's start: every optional parameter shown with its schema, none of LATER_RULES. */
export function branchStartViews(def: ToolDefinition): ToolViews {
  return countedViews(
    compactView(def, { ...COMPACT_LIMITS, optionalParametersShown: Number.POSITIVE_INFINITY }, { without: LATER_RULES }).tool,
    requiredOnlyView(def, REQUIRED_ONLY_LIMITS, { without: LATER_RULES }).tool,
  );
}

/** The rules added after `optional-parameters-named-only`, in the order they were added (README: answer-tokens). */
export const LATER_RULES: readonly OptionalRule[] = ["restating-descriptions-dropped", "described-defaults-dropped"];

/** The views with every rule up to and including `last` (undefined: none of LATER_RULES). */
export function viewsUpTo(def: ToolDefinition, last: OptionalRule | undefined): ToolViews {
  const without = LATER_RULES.slice(last === undefined ? 0 : LATER_RULES.indexOf(last) + 1);
  return countedViews(compactView(def, COMPACT_LIMITS, { without }).tool, requiredOnlyView(def, REQUIRED_ONLY_LIMITS, { without }).tool);
}

export function countedViews(compact: OpenAiTool, requiredOnly: OpenAiTool): ToolViews {
  return { compact, compactTokens: tokens(JSON.stringify(compact)), requiredOnly, requiredOnlyTokens: tokens(JSON.stringify(requiredOnly)) };
}

/** The least a tools entry can be without dropping a required parameter: envelope, name, required parameters' types. */
export function floorEntry(def: ToolDefinition): OpenAiTool {
  const required = def.parameters.filter(isRequired);
  if (required.length === 0) return { type: "function", function: { name: def.name, description: "" } };
  const properties = Object.fromEntries(required.map((p) => [p.name, typeof p.schema.type === "string" ? { type: p.schema.type } : {}]));
  return { type: "function", function: { name: def.name, description: "", parameters: { type: "object", properties, required: required.map((p) => p.name) } } };
}

/** Which views: this branch's start, after `optional-parameters-named-only`, after each later rule, and the stored views now. */
export type ViewKind = "start" | "named-only" | OptionalRule | "now";

/** Views per tool and configuration, computed once per tool (as the service stores them). */
export class ViewCache {
  readonly #defs: ReadonlyMap<string, ToolDefinition>;
  readonly #views = new Map<ViewKind, Map<string, ToolViews>>();
  constructor(defs: ReadonlyMap<string, ToolDefinition>) {
    this.#defs = defs;
  }
  views(tool: string, which: ViewKind): ToolViews | undefined {
    const def = this.#defs.get(tool);
    if (def === undefined) return undefined;
    let cache = this.#views.get(which);
    if (cache === undefined) this.#views.set(which, (cache = new Map()));
    let v = cache.get(tool);
    if (v === undefined)
      cache.set(
        tool,
        (v = which === "now" ? toolViews(def) : which === "start" ? branchStartViews(def) : viewsUpTo(def, which === "named-only" ? undefined : which)),
      );
    return v;
  }
}

/** A ranked list answered locally with the given views and parts, as the service would. */
export function budgeted(list: Ranked, cache: ViewCache, cell: Cell, which: ViewKind, include: readonly AnswerPart[]): BudgetedAnswer {
  const ranked = list.ranked.map((r) => {
    const v = cache.views(r.tool, which);
    return { tool: r.tool, weight: r.weight, description: oldShortDescription(cell.defs.get(r.tool)), ...(v === undefined ? {} : { views: v }) };
  });
  const result = fitToBudget({ previous: list.previous, ranked, maxTokens: DEFAULT_MAX_TOKENS, include, weights: "fused" });
  if (!result.ok) throw new Error(result.message);
  return result.answer;
}
