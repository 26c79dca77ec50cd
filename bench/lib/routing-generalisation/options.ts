/** The command-line options of bench/routing-generalisation.ts (documented in its header), read once from process.argv. */
import { DEFAULT_TUNING, EMBEDDINGS_WEIGHT, LEXICAL_LEAD, type ToolDocField } from "../../../functions/toolnet/retrieval";
import { CLAUSE_WEIGHT } from "../../../functions/toolnet/retrieval/task-clauses";
import { API_EVIDENCE_WEIGHT } from "../../../functions/toolnet/retrieval/api-evidence";
import { WORD_COVERAGE_WEIGHT } from "../../../functions/toolnet/retrieval/term-coverage";
import {
  DEFAULT_FUSION,
  DEFAULT_NEXT_STEP_FUSION,
  EVIDENCE_PRIOR,
  MIN_TRANSITION_EVIDENCE,
  type FusionWeights,
} from "../../../functions/toolnet/signal-fusion";
import { FIRST_STEP_MIN_SIMILARITY, LATER_STEP_MIN_SIMILARITY } from "../../../functions/toolnet/task-memory";
import { UNFIT_PENALTY } from "../../../functions/toolnet/task-fit";
import { embeddingsChoice } from "../embedding-vectors";

export const parseWeights = (flag: string, defaults: FusionWeights): FusionWeights => {
  const values = process.argv
    .find((a) => a.startsWith(`--${flag}=`))
    ?.slice(flag.length + 3)
    .split(",")
    .map(Number);
  if (values === undefined) return defaults;
  const [k, relevance, transition, dataFlow, history, sibling, prior] = values;
  return {
    k: k ?? defaults.k,
    relevance: relevance ?? defaults.relevance,
    transition: transition ?? defaults.transition,
    dataFlow: dataFlow ?? defaults.dataFlow,
    history: history ?? defaults.history,
    sibling: sibling ?? defaults.sibling,
    prior: prior ?? defaults.prior,
  };
};
/** `--weights=k,relevance,transition,dataFlow,history,sibling,prior` tries other first-step and run-set weights; `--next-weights=…` later-step ones (tuning). */
export const WEIGHTS = parseWeights("weights", DEFAULT_FUSION);
export const NEXT_WEIGHTS = parseWeights("next-weights", DEFAULT_NEXT_STEP_FUSION);

/**
 * `--half=a` or `--half=b` measures only the tasks of one half (groups split by a hash of their
 * id; the graph and task memory still learn from every other task). Weights are tuned on half a
 * and reported on half b, so a figure on b is one the tuning never saw.
 */
export const HALF = process.argv.find((a) => a.startsWith("--half="))?.slice("--half=".length);
export function inHalf(group: string): boolean {
  if (HALF === undefined) return true;
  let hash = 2166136261;
  for (let i = 0; i < group.length; i += 1) hash = Math.imul(hash ^ group.charCodeAt(i), 16777619);
  return ((hash >>> 0) % 2 === 0) === (HALF === "a");
}

/** `--api-weight=W`: weight of each tool's API's backing (api-evidence.ts; 0: none); chosen on half a. */
export const API_WEIGHT = Number(process.argv.find((a) => a.startsWith("--api-weight="))?.slice("--api-weight=".length) ?? API_EVIDENCE_WEIGHT);

/** `--clauses=W`: weight of the task's clauses' rankings fused with the whole task's (0: whole task only); chosen on half a. */
export const WORD_COVERAGE = Number(process.argv.find((a) => a.startsWith("--word-coverage="))?.slice("--word-coverage=".length) ?? WORD_COVERAGE_WEIGHT);
export const CLAUSES = Number(process.argv.find((a) => a.startsWith("--clauses="))?.slice("--clauses=".length) ?? CLAUSE_WEIGHT);

/** `--boost=field:N,…` weighs any fields of tool documents (e.g. `values:0.5,parameterDocs:0.5`; 0 leaves a field out); chosen on half a. */
export const FIELD_BOOSTS: Partial<Record<ToolDocField, number>> = Object.fromEntries(
  (
    process.argv
      .find((a) => a.startsWith("--boost="))
      ?.slice("--boost=".length)
      .split(",") ?? []
  ).map((pair) => {
    const [field, value] = pair.split(":");
    return [field as ToolDocField, Number(value)];
  }),
);

/** `--unfit-penalty=N`: places a tool that needs a number the task does not give moves down (0: none); chosen on half a. */
export const UNFIT = Number(process.argv.find((a) => a.startsWith("--unfit-penalty="))?.slice("--unfit-penalty=".length) ?? UNFIT_PENALTY);

/** `--later-min-similarity=X`: how similar an earlier task must be to vote at a later step; chosen on half a. */
export const LATER_MIN_SIMILARITY = Number(
  process.argv.find((a) => a.startsWith("--later-min-similarity="))?.slice("--later-min-similarity=".length) ?? LATER_STEP_MIN_SIMILARITY,
);

/** `--first-min-similarity=X`: how similar an earlier task must be to vote at the first step; chosen on half a. */
export const FIRST_MIN_SIMILARITY = Number(
  process.argv.find((a) => a.startsWith("--first-min-similarity="))?.slice("--first-min-similarity=".length) ?? FIRST_STEP_MIN_SIMILARITY,
);

/** `--min-evidence=N`: learned transitions observed fewer times are left out at later steps; chosen on half a. */
export const MIN_EVIDENCE = Number(process.argv.find((a) => a.startsWith("--min-evidence="))?.slice("--min-evidence=".length) ?? MIN_TRANSITION_EVIDENCE);

/** `--evidence-prior=C`: a transition observed n times weighs n / (n + C) at later steps (0: all of it); chosen on half a. */
export const EVIDENCE = Number(process.argv.find((a) => a.startsWith("--evidence-prior="))?.slice("--evidence-prior=".length) ?? EVIDENCE_PRIOR);

/** `--skip-sets` leaves run candidate sets out (tuning runs). */
export const SKIP_SETS = process.argv.includes("--skip-sets");

/** `--first-only` measures the first step alone (tuning runs). */
export const FIRST_ONLY = process.argv.includes("--first-only");

/** `--siblings-boost=N` weighs the sibling operations' field of tool documents (0: left out of ranking); chosen on half a. */
export const SIBLINGS_BOOST = Number(
  process.argv.find((a) => a.startsWith("--siblings-boost="))?.slice("--siblings-boost=".length) ?? DEFAULT_TUNING.boosts.siblings,
);
/** `--phrases-boost=N` weighs the title phrases field of tool documents (adjacent word pairs; 0: left out of ranking); chosen on half a. */
export const PHRASES_BOOST = Number(
  process.argv.find((a) => a.startsWith("--phrases-boost="))?.slice("--phrases-boost=".length) ?? DEFAULT_TUNING.boosts.phrases,
);

/** `--query-saturation=K3`: Okapi k3 for terms a task repeats (Infinity: every repeat counts in full, as before); chosen on half a. */
export const QUERY_SATURATION = Number(
  process.argv.find((a) => a.startsWith("--query-saturation="))?.slice("--query-saturation=".length) ?? DEFAULT_TUNING.queryTermSaturation,
);

/** `--name-lookups=N`: only the N best tools have their by-name producers placed after them when the task names an entity (0: none; default: every ranked tool, as routing does). */
export const NAME_LOOKUPS = Number(process.argv.find((a) => a.startsWith("--name-lookups="))?.slice("--name-lookups=".length) ?? Number.POSITIVE_INFINITY);

/**
 * `--embeddings=local` (the offline sentence encoder, scripts/local-embeddings.ts) or
 * `--embeddings=URL --embeddings-model=NAME` (any OpenAI-compatible endpoint): first-step and
 * later-step variants whose relevance is the product's fusion of BM25 with the embeddings ranking
 * (hybridSearch), beside the lexical ones, in the same run.
 */
export const EMBEDDINGS = embeddingsChoice(process.argv.slice(2));
/**
 * `--embeddings-weight=W[,W…]`: weight of the embeddings ranking in that fusion (lexical: 1);
 * several weights measure each in the same run (tuning, on half a).
 */
export const DENSE_WEIGHTS = (process.argv.find((a) => a.startsWith("--embeddings-weight="))?.slice("--embeddings-weight=".length) ?? String(EMBEDDINGS_WEIGHT))
  .split(",")
  .map(Number);
/** `--embeddings-lead=S[,S…]`: share of the best BM25 score at which lexical matches lead (hybrid.ts LEXICAL_LEAD). */
export const DENSE_LEADS = (process.argv.find((a) => a.startsWith("--embeddings-lead="))?.slice("--embeddings-lead=".length) ?? String(LEXICAL_LEAD))
  .split(",")
  .map(Number);
