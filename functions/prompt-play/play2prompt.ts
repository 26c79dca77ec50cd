import type { ToolDefinition } from "../tools/definition";
import { recordsOf, type BeamRecord, type StopReason } from "./beam-search";
import { Budget, type BudgetUsage } from "./budget";
import { parseCheckpoint, type PlayCheckpoint } from "./checkpoint";
import { runDescriptionSearch, descriptionKey, type RankedDescription } from "./description-search";
import { demonstrationKey, runDemonstrationSearch } from "./demonstration-search";
import { validatePlaySettings, type PlaySettingsInput } from "./settings";
import type { Demonstration, PlayDependencies } from "./types";

/**
 * One Play2Prompt job for one tool (§3.1, "Optimization Details"): beam search over
 * demonstrations first (Algorithm 1), then beam search over descriptions scored on the top
 * demonstrations (Algorithm 2), with the same search settings. The paper describes the two
 * tasks as able to alternate; its experiments run them once in this order, and so does a job.
 *
 * The job is pure: model, tool and solver are injected. It stops cleanly when its budget is
 * spent, reports the best found so far, and can be resumed from any checkpoint it handed out.
 */

export interface PlayInput {
  tool: ToolDefinition;
  /** The description to improve; by default the tool's own (description, else summary). */
  description?: string | undefined;
  settings?: PlaySettingsInput | undefined;
  /** A checkpoint from an earlier run of this job (`onCheckpoint`), to continue from. */
  resumeFrom?: unknown;
}

export interface PlayResult {
  toolName: string;
  originalDescription: string;
  bestDescription: string;
  /** Fraction of the demonstrations the base model solves with the best description; null when never scored. */
  bestScore: number | null;
  originalScore: number | null;
  /** True when the best description scores strictly higher than the original. */
  improved: boolean;
  /** The top demonstrations, best first: the description search's proxy test set. */
  demonstrations: Demonstration[];
  /** Best descriptions found, best first (the original among them when it ranks). */
  ranking: RankedDescription[];
  /** The beam at each depth of both searches, for progress displays. */
  beams: { demonstrations: BeamRecord[]; descriptions: BeamRecord[] };
  usage: BudgetUsage;
  /** Why the job ended: the description phase's reason, or the demonstration phase's when it never ran. */
  stoppedBy: StopReason;
  phases: { demonstrations: StopReason; descriptions: StopReason | null };
}

/** The description a tool starts with, as the typed API shows it. */
export function currentDescription(tool: ToolDefinition): string {
  return tool.description || tool.summary || "";
}

/** Run (or resume) a Play2Prompt job: demonstrations by tool play, then the best description. */
export async function playToPrompt(input: PlayInput, deps: PlayDependencies): Promise<PlayResult> {
  const settings = validatePlaySettings(input.settings ?? {});
  const { tool } = input;
  const resume = input.resumeFrom === undefined ? undefined : parseCheckpoint(input.resumeFrom, tool.name);
  const original = resume?.originalDescription ?? input.description ?? currentDescription(tool);

  const limits = { maxModelCalls: settings.budget.maxModelCalls, maxTokens: settings.budget.maxTokens };
  const budget = new Budget(limits, resume?.usage);
  // The demonstration phase gets a share, so a costly tool cannot leave nothing for the descriptions.
  const share = settings.budget.demonstrationShare;
  const demonstrationBudget = budget.phase(
    { maxModelCalls: Math.max(1, Math.floor(limits.maxModelCalls * share)), maxTokens: Math.max(1, Math.floor(limits.maxTokens * share)) },
    resume?.demonstrationUsage,
  );

  let checkpoint: PlayCheckpoint = {
    version: 1,
    toolName: tool.name,
    originalDescription: original,
    usage: budget.usage(),
    demonstrationUsage: demonstrationBudget.usage(),
    demonstrationSearch: resume?.demonstrationSearch,
    demonstrations: resume?.demonstrations,
    descriptionSearch: resume?.descriptionSearch,
  };
  const save = async (patch: Partial<PlayCheckpoint>): Promise<void> => {
    checkpoint = { ...checkpoint, ...patch, usage: budget.usage(), demonstrationUsage: demonstrationBudget.usage() };
    await deps.onCheckpoint?.(checkpoint);
  };

  // Phase 1 — demonstrations. Once the description phase has started they are fixed: they are
  // its test set, and changing them would make earlier and later scores incomparable.
  let demonstrations: Demonstration[];
  let demonstrationRecords: BeamRecord[];
  let demonstrationsStopped: StopReason;
  if (resume?.demonstrations !== undefined) {
    demonstrations = resume.demonstrations;
    demonstrationRecords = resume.demonstrationSearch === undefined ? [] : recordsOf(resume.demonstrationSearch, settings.beamWidth, demonstrationKey);
    demonstrationsStopped = resume.demonstrationSearch?.stoppedBy ?? "depth";
  } else {
    deps.onProgress?.({ type: "phase_started", phase: "demonstrations" });
    const found = await runDemonstrationSearch({
      tool,
      description: original,
      settings,
      budget: demonstrationBudget,
      deps,
      state: checkpoint.demonstrationSearch,
      onCheckpoint: (state) => save({ demonstrationSearch: state }),
    });
    demonstrations = found.demonstrations;
    demonstrationRecords = found.records;
    demonstrationsStopped = found.stoppedBy;
    deps.onProgress?.({ type: "phase_finished", phase: "demonstrations", stoppedBy: found.stoppedBy });
  }

  const base = {
    toolName: tool.name,
    originalDescription: original,
    demonstrations,
  };
  // Phase 2 — descriptions, when there is something to score them on and budget to do it.
  if (demonstrations.length === 0 || (checkpoint.descriptionSearch === undefined && budget.exhausted)) {
    await save({});
    return {
      ...base,
      bestDescription: original,
      bestScore: null,
      originalScore: null,
      improved: false,
      ranking: [],
      beams: { demonstrations: demonstrationRecords, descriptions: [] },
      usage: budget.usage(),
      stoppedBy: demonstrations.length === 0 ? demonstrationsStopped : "budget",
      phases: { demonstrations: demonstrationsStopped, descriptions: null },
    };
  }
  if (checkpoint.demonstrations === undefined) await save({ demonstrations });
  deps.onProgress?.({ type: "phase_started", phase: "descriptions" });
  const searched = await runDescriptionSearch({
    tool,
    description: original,
    demonstrations,
    settings: { depth: settings.depth, beamWidth: settings.beamWidth, expansionsPerNode: settings.expansionsPerNode },
    budget,
    deps,
    state: checkpoint.descriptionSearch,
    onCheckpoint: (state) => save({ descriptionSearch: state }),
  });
  deps.onProgress?.({ type: "phase_finished", phase: "descriptions", stoppedBy: searched.stoppedBy });
  await save({});
  const improved =
    searched.bestScore !== null &&
    searched.originalScore !== null &&
    searched.bestScore > searched.originalScore &&
    descriptionKey({ description: searched.bestDescription }) !== descriptionKey({ description: original });
  return {
    ...base,
    bestDescription: searched.bestDescription,
    bestScore: searched.bestScore,
    originalScore: searched.originalScore,
    improved,
    ranking: searched.ranking,
    beams: { demonstrations: demonstrationRecords, descriptions: searched.records },
    usage: budget.usage(),
    stoppedBy: searched.stoppedBy,
    phases: { demonstrations: demonstrationsStopped, descriptions: searched.stoppedBy },
  };
}
