/**
 * ToolNet (Liu et al., 2024): a per-tenant weighted directed tool graph. Pure functions over
 * plain data, no platform imports: the tenant's Durable Object owns one ToolGraph, persists
 * exportGraph()'s rows and rebuilds with loadGraph().
 */
export { START, END, MAX_NODE_NAME_LENGTH, isReservedId } from "./node-ids";
export { graphFailure, isGraphFailure, type ToolGraphCode } from "./errors";
export { DEFAULT_SETTINGS, resolveSettings, type GraphSettings } from "./settings";
export { DEFAULT_MAX_TRAJECTORY_LENGTH, type Trajectory } from "./trajectory";
export {
  createGraph,
  updateSettings,
  addTool,
  addTools,
  removeTool,
  hasTool,
  type ToolGraph,
} from "./tool-graph";
export {
  addTrajectory,
  addTrajectories,
  removeTrajectory,
  type StaticImportOptions,
  type StaticImportResult,
} from "./static-construction";
export {
  applyFeedback,
  MIN_EVALUATOR_SCORE,
  MAX_EVALUATOR_SCORE,
  type Evaluation,
  type FeedbackOptions,
  type FeedbackResult,
} from "./dynamic-construction";
export { scoreMass, staticWeight, transitionWeight, transitionWeights } from "./transition-weights";
export {
  successors,
  graphStepSuccessors,
  learnedSuccessors,
  promptWeight,
  PROMPT_WEIGHT_SCALE,
  type LearnedSuccessor,
  type RankedTool,
  type SuccessorOptions,
} from "./ranking";
export { formatPromptBlock, type PromptBlockInput } from "./prompt-format";
export {
  candidateSet,
  MAX_CANDIDATE_HOPS,
  type Candidate,
  type CandidateSet,
  type CandidateSetOptions,
} from "./candidate-set";
export { exportGraph, loadGraph, SNAPSHOT_FORMAT, ToolGraphSnapshot } from "./snapshot";
export {
  apiBankTrajectories,
  stableToolBenchTrajectories,
  restBenchTrajectories,
  TOOLBENCH_FINISH,
  type ParsedTrajectories,
} from "./trajectory-sources";
