/**
 * Play2Prompt: better tool descriptions and usage examples, found by playing with the tool.
 * Pure code: the model, the tool and the base-model solver are injected by the caller.
 */

export { playToPrompt, currentDescription, type PlayInput, type PlayResult } from "./play2prompt";
export {
  runDemonstrationSearch,
  summarizeResult,
  type DemonstrationNodeState,
  type DemonstrationSearchInput,
  type DemonstrationSearchResult,
} from "./demonstration-search";
export {
  runDescriptionSearch,
  invocationsMatch,
  type DescriptionNodeState,
  type DescriptionSearchInput,
  type DescriptionSearchResult,
  type RankedDescription,
} from "./description-search";
export {
  runBeamSearch,
  initialBeamState,
  recordsOf,
  rankNodes,
  type BeamEntry,
  type BeamHooks,
  type BeamNode,
  type BeamProblem,
  type BeamRecord,
  type BeamSearchOutcome,
  type BeamSearchState,
  type Candidate,
  type StopReason,
} from "./beam-search";
export { Budget, budgetExhausted, budgetedChat, isBudgetExhausted, type BudgetUsage, type ModelTurn } from "./budget";
export { parseCheckpoint, PlayCheckpointSchema, type PlayCheckpoint } from "./checkpoint";
export {
  validatePlaySettings,
  validateBeamSettings,
  invalidSettings,
  PAPER_DEFAULTS,
  PlaySettingsSchema,
  BeamSettingsSchema,
  type PlaySettings,
  type PlaySettingsInput,
  type BeamSettings,
  type BudgetLimits,
} from "./settings";
export { parseModelJson } from "./model-output";
export type { Demonstration, PlayDependencies, PlayEvent, PlayPhase, PlayPurpose, SolveOutcome, ToolArguments, ToolCallOutcome } from "./types";
