import { END, START } from "./node-ids";
import type { RankedTool } from "./ranking";

/**
 * The candidate block shown to the model at each step (eq. 4: T_s, the successors of the last
 * tool). What the paper fixes (§3, §4.2.3): the successors are listed sorted by transition
 * weight, each with its weight as an integer (×10 format, see PROMPT_WEIGHT_SCALE), and the
 * weights are presented as preferences the model may refer to. The paper prints no prompt text,
 * so the wording is ours; the end node is shown as the paper's Finish action.
 */

export interface PromptBlockInput {
  /** The tool used last, or START before the first step. */
  readonly previous: string;
  /** Ranked successors, as returned by successors(), best first. */
  readonly candidates: readonly RankedTool[];
  /** One-line description of a tool, if there is one. Keep it short: this is per step. */
  readonly describe?: (tool: string) => string | undefined;
  /** How the end node is named to the model; default "Finish". */
  readonly finishName?: string;
  /** What the weights mean, when they are not eq. 6 transition weights alone. */
  readonly weightNote?: string;
}

const FINISH_DESCRIPTION = "Stop calling tools and give the final answer (or report that the task cannot be done).";

/** Renders the candidate tools and their weights as the text block of one reasoning step. */
export function formatPromptBlock(input: PromptBlockInput): string {
  const finish = input.finishName ?? "Finish";
  const header =
    input.previous === START ? "Tools you can start with, sorted by weight:" : `You last used ${input.previous}. Tools you can use next, sorted by weight:`;
  const lines = input.candidates.map((candidate, index) => {
    const isEnd = candidate.tool === END;
    const name = isEnd ? finish : candidate.tool;
    const description = isEnd ? FINISH_DESCRIPTION : input.describe?.(candidate.tool);
    const tail = description === undefined || description === "" ? "" : `: ${oneLine(description)}`;
    return `${index + 1}. ${name} (weight ${candidate.weight})${tail}`;
  });
  const footer =
    input.weightNote ??
    "A weight (0–1000) is how strongly past runs favour that tool at this step: tools that came next often and " +
      "worked well weigh more, tools that failed weigh less. Prefer heavier tools, but choose what the task needs.";
  return [header, ...lines, footer].join("\n");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
