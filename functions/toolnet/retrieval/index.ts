/** ToolNet routing, step one: rank a tenant's tools for a task text, lexically and optionally by embeddings. */
export { analyze, splitWords } from "./analyze";
export { API_EVIDENCE_WEIGHT, withApiEvidence, type SiblingsOf } from "./api-evidence";
export { MAX_TOOL_EMBEDDING_CHARS, toolEmbeddingText } from "./embedding-text";
export { cosine, fuseRankings, rankByCosine, RRF_K, type FusionOptions, type Vector } from "./fusion";
export { EMBEDDINGS_WEIGHT, hybridSearch, hybridTwoWays, LEXICAL_LEAD, type HybridOptions } from "./hybrid";
export { INDEX_FORMAT } from "./impact-index";
export { searchCoveringWords, searchTwoWays, WORD_COVERAGE_WEIGHT, type CoveringOptions } from "./term-coverage";
export type { Ranked } from "./ranked";
export { TOOL_DOC_FIELDS, toolDocument, type ToolDoc, type ToolDocField } from "./tool-document";
export { DEFAULT_TUNING, ToolIndex, type RankingTuning, type SerializedToolIndex } from "./tool-index";
