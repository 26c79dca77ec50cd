/** The service's route answer as this bench reads it, and what one cell (tools × k × step) of answers collects. */
import type { OpenAiTool } from "../../../functions/toolnet/openai-tools";
import type { ToolDefinition } from "../../../functions/tools/definition";

export interface Answer {
  via: string;
  candidates: { name: string; weight: number; view?: string }[];
  prompt?: string;
  tools?: OpenAiTool[];
  overBudget: { name: string; weight: number; reason: string }[];
  tokens: { prompt: number; tools: number; total: number; budget: number };
}

export interface Query {
  text: string;
  gold: string[];
}

export type Step = "first" | "later";

export interface Cell {
  size: number;
  k: number;
  step: Step;
  compact: number[];
  /** Tokens per answer in each configuration (CONFIGURATIONS), same ranked lists. */
  configurations: Map<string, number[]>;
  overBudgetAnswers: number;
  overBudgetTools: number;
  /** first: recall@k shown / ranked (per query with gold); later: hit@1 and hit@k shown / ranked. */
  shown1: number;
  ranked1: number;
  shownK: number;
  rankedK: number;
  scored: number;
  routeMs: number[];
  authMs: number[];
  /** Each answer's ranked list, for timing the answer assembly in this process. */
  rankedLists: { previous: string; ranked: { tool: string; weight: number }[] }[];
  defs: ReadonlyMap<string, ToolDefinition>;
}

export type Ranked = Cell["rankedLists"][number];
