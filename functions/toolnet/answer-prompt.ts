import { END, formatPromptBlock, START } from "./graph";

/**
 * The `prompt` block of a budgeted routing answer: ToolNet's candidate list (successors sorted
 * by weight, each weight an integer, presented as a preference). Next to the answer's `tools`
 * array it takes the form that costs least (rule "prompt-names-in-tools": the tools are not named
 * again; `tools` lists them best first and the block gives their weights in that order, so a
 * tool's name and description are paid for once; Finish, which has no `tools` entry, is named).
 * Without `tools` it is the paper's eq. 4 list, one line per tool with its weight and description
 * (`toolListPrompt`).
 */

/** What the weights were made from: eq. 6 transitions alone, or fused routing's signals. */
export type WeightKind = "transitions" | "fused";

const WEIGHT_NOTES: Record<WeightKind, string> = {
  transitions: "Weights (0–1000): how strongly past runs favour a tool here. Prefer heavier tools unless the task needs another.",
  fused: "Weights (0–1000) join past runs, task relevance and data flow. Prefer heavier tools unless the task needs another.",
};

export interface AnswerPromptInput {
  /** The tool used last, or START. */
  previous: string;
  /** Weights of the tools shown, in the order of the `tools` array (best first). */
  toolWeights: readonly number[];
  /** Finish's weight when it is a candidate (later steps). */
  finishWeight?: number | undefined;
  weights: WeightKind;
}

export function answerPrompt(input: AnswerPromptInput): string {
  return answerPromptParts(input).join("");
}

/**
 * The block in parts that the tokenizer splits apart anyway (each ends before a space or a new
 * line's first word), so the block's tokens are the sum of the parts' counts; the parts other
 * than the weights recur from answer to answer and are counted once (text/token-count.ts).
 */
export function answerPromptParts(input: AnswerPromptInput): string[] {
  const step = input.previous === START ? "First step" : `After ${input.previous}`;
  const n = input.toolWeights.length;
  const tools =
    n === 0
      ? [`${step}: no tool fits this answer's token budget.\n`]
      : [`${step}: the ${n === 1 ? "tool" : `${n} tools`} in \`tools\`, best first, weights`, ` ${input.toolWeights.join(", ")}.\n`];
  const finish = input.finishWeight === undefined ? [] : [`Finish (stop and give the final answer): weight`, ` ${input.finishWeight}.\n`];
  return [...tools, ...finish, WEIGHT_NOTES[input.weights]];
}

/** One candidate of the eq. 4 list: a tool (or END, shown as Finish), its weight, its one-line description. */
export interface ListedTool {
  tool: string;
  weight: number;
  description: string;
}

/**
 * The eq. 4 block for an answer without a `tools` array: every candidate named on its own line,
 * sorted by weight (Finish among them), with its description (graph/prompt-format.ts).
 */
export function toolListPrompt(previous: string, listed: readonly ListedTool[], weights: WeightKind): string {
  const sorted = [...listed].sort((a, b) => b.weight - a.weight);
  const byTool = new Map(sorted.map((c) => [c.tool, c.description]));
  return formatPromptBlock({
    previous,
    candidates: sorted.map((c) => ({ tool: c.tool, weight: c.weight, exact: c.weight / 1000 })),
    describe: (tool) => (tool === END ? undefined : byTool.get(tool)),
    weightNote: WEIGHT_NOTES[weights],
  });
}
