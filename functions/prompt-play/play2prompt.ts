import type { ToolDefinition } from "../tools/definition";
import { recordsOf, type BeamRecord, type StopReason } from "./beam-search";
import { Budget, type BudgetUsage } from "./budget";
import { parseCheckpoint, type PlayCheckpoint } from "./checkpoint";
import { runDescriptionSearch, descriptionKey, type DescriptionSearchResult, type RankedDescription } from "./description-search";
import { demonstrationKey, runDemonstrationSearch } from "./demonstration-search";
import { validatePlaySettings, type PlaySettings, type PlaySettingsInput } from "./settings";
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
  const { budget, demonstrationBudget } = jobBudgets(settings, resume);
  const checkpoints = new CheckpointKeeper(
    {
      version: 1,
      toolName: tool.name,
      originalDescription: original,
      usage: budget.usage(),
      demonstrationUsage: demonstrationBudget.usage(),
      demonstrationSearch: resume?.demonstrationSearch,
      demonstrations: resume?.demonstrations,
      descriptionSearch: resume?.descriptionSearch,
    },
    budget,
    demonstrationBudget,
    deps,
  );

  const found = await demonstrationPhase({ tool, original, settings, resume, budget: demonstrationBudget, deps, checkpoints });
  const { demonstrations } = found;
  // Phase 2 — descriptions, when there is something to score them on and budget to do it.
  if (demonstrations.length === 0 || (checkpoints.current.descriptionSearch === undefined && budget.exhausted)) {
    await checkpoints.save({});
    return unscoredResult(tool.name, original, found, budget);
  }
  if (checkpoints.current.demonstrations === undefined) await checkpoints.save({ demonstrations });
  deps.onProgress?.({ type: "phase_started", phase: "descriptions" });
  const searched = await runDescriptionSearch({
    tool,
    description: original,
    demonstrations,
    settings: { depth: settings.depth, beamWidth: settings.beamWidth, expansionsPerNode: settings.expansionsPerNode },
    budget,
    deps,
    state: checkpoints.current.descriptionSearch,
    onCheckpoint: (state) => checkpoints.save({ descriptionSearch: state }),
  });
  deps.onProgress?.({ type: "phase_finished", phase: "descriptions", stoppedBy: searched.stoppedBy });
  await checkpoints.save({});
  return scoredResult(tool.name, original, found, searched, budget);
}

/** The job's budget and the demonstration phase's share of it, with the usage of a resumed run. */
function jobBudgets(settings: PlaySettings, resume: PlayCheckpoint | undefined): { budget: Budget; demonstrationBudget: Budget } {
  const limits = { maxModelCalls: settings.budget.maxModelCalls, maxTokens: settings.budget.maxTokens };
  const budget = new Budget(limits, resume?.usage);
  // The demonstration phase gets a share, so a costly tool cannot leave nothing for the descriptions.
  const share = settings.budget.demonstrationShare;
  const demonstrationBudget = budget.phase(
    { maxModelCalls: Math.max(1, Math.floor(limits.maxModelCalls * share)), maxTokens: Math.max(1, Math.floor(limits.maxTokens * share)) },
    resume?.demonstrationUsage,
  );
  return { budget, demonstrationBudget };
}

/** The job's latest checkpoint, patched by each phase and handed out with the usage so far. */
class CheckpointKeeper {
  constructor(
    private checkpoint: PlayCheckpoint,
    private readonly budget: Budget,
    private readonly demonstrationBudget: Budget,
    private readonly deps: PlayDependencies,
  ) {}

  get current(): PlayCheckpoint {
    return this.checkpoint;
  }

  async save(patch: Partial<PlayCheckpoint>): Promise<void> {
    this.checkpoint = { ...this.checkpoint, ...patch, usage: this.budget.usage(), demonstrationUsage: this.demonstrationBudget.usage() };
    await this.deps.onCheckpoint?.(this.checkpoint);
  }
}

interface FoundDemonstrations {
  demonstrations: Demonstration[];
  records: BeamRecord[];
  stoppedBy: StopReason;
}

/**
 * Phase 1 — demonstrations. Once the description phase has started they are fixed: they are
 * its test set, and changing them would make earlier and later scores incomparable.
 */
async function demonstrationPhase(phase: {
  tool: ToolDefinition;
  original: string;
  settings: PlaySettings;
  resume: PlayCheckpoint | undefined;
  budget: Budget;
  deps: PlayDependencies;
  checkpoints: CheckpointKeeper;
}): Promise<FoundDemonstrations> {
  const { resume, settings, deps, checkpoints } = phase;
  if (resume?.demonstrations !== undefined) {
    return {
      demonstrations: resume.demonstrations,
      records: resume.demonstrationSearch === undefined ? [] : recordsOf(resume.demonstrationSearch, settings.beamWidth, demonstrationKey),
      stoppedBy: resume.demonstrationSearch?.stoppedBy ?? "depth",
    };
  }
  deps.onProgress?.({ type: "phase_started", phase: "demonstrations" });
  const found = await runDemonstrationSearch({
    tool: phase.tool,
    description: phase.original,
    settings,
    budget: phase.budget,
    deps,
    state: checkpoints.current.demonstrationSearch,
    onCheckpoint: (state) => checkpoints.save({ demonstrationSearch: state }),
  });
  deps.onProgress?.({ type: "phase_finished", phase: "demonstrations", stoppedBy: found.stoppedBy });
  return { demonstrations: found.demonstrations, records: found.records, stoppedBy: found.stoppedBy };
}

/** The result when no description was scored: no demonstrations, or no budget left for them. */
function unscoredResult(toolName: string, original: string, found: FoundDemonstrations, budget: Budget): PlayResult {
  return {
    toolName,
    originalDescription: original,
    demonstrations: found.demonstrations,
    bestDescription: original,
    bestScore: null,
    originalScore: null,
    improved: false,
    ranking: [],
    beams: { demonstrations: found.records, descriptions: [] },
    usage: budget.usage(),
    stoppedBy: found.demonstrations.length === 0 ? found.stoppedBy : "budget",
    phases: { demonstrations: found.stoppedBy, descriptions: null },
  };
}

/** The result of a job whose description search ran. */
function scoredResult(toolName: string, original: string, found: FoundDemonstrations, searched: DescriptionSearchResult, budget: Budget): PlayResult {
  const improved =
    searched.bestScore !== null &&
    searched.originalScore !== null &&
    searched.bestScore > searched.originalScore &&
    descriptionKey({ description: searched.bestDescription }) !== descriptionKey({ description: original });
  return {
    toolName,
    originalDescription: original,
    demonstrations: found.demonstrations,
    bestDescription: searched.bestDescription,
    bestScore: searched.bestScore,
    originalScore: searched.originalScore,
    improved,
    ranking: searched.ranking,
    beams: { demonstrations: found.records, descriptions: searched.records },
    usage: budget.usage(),
    stoppedBy: searched.stoppedBy,
    phases: { demonstrations: found.stoppedBy, descriptions: searched.stoppedBy },
  };
}
