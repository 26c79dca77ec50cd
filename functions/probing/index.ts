/**
 * Black-box probing (ATC §4): instance discovery, protocol documenting and chain of probing, as
 * pure code. The platform (tool calls, the program sandbox, the model, storage) is passed in.
 */
export {
  probeTools,
  rankHelpers,
  type RankedHelper,
  type DirectCallResult,
  type ProbeDependencies,
  type ProbeEvent,
  type ProbeModelTurn,
  type ProbeOptions,
  type ProbePurpose,
  type ProbeReport,
  type ProbeTarget,
  type ProgramCall,
  type ProgramRun,
  type ToolProbeResult,
} from "./chain-of-probing";
export {
  dataFlowCandidates,
  effectiveSchema,
  fillArguments,
  isInformative,
  observeValues,
  parameterCandidates,
  requiredIdentifiers,
  type ArgumentSet,
  type DataFlowBinding,
  type FillContext,
  type ProbedOutput,
  type ValueCandidate,
  type ValueSource,
} from "./instance-discovery";
export {
  describeToolMessages,
  helperSelectionMessages,
  instanceDiscoveryMessages,
  parseHelperSelection,
  parseInstanceAnswer,
  type HelperTool,
  type InstanceAnswer,
  type ProbeMessage,
} from "./prompts";
export {
  chainExample,
  directExample,
  documentProtocol,
  ProbedProtocol,
  ProbeExample,
  ProbeHow,
  ProbeUsage,
  protocolOverrides,
  renderPaperProtocol,
  SampleValue,
  type ChainBinding,
  type DocumentInput,
} from "./protocol";
export { ResponseSchema, responseSchemaToJsonSchema, schemaTransform, type AtomicTypeName, type SchemaTransformOptions } from "./schema-transform";
