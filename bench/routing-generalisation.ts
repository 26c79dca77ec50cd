/**
 * Routing that generalises: first-step retrieval, later-step candidates and run candidate sets
 * on tasks the tenant has not seen, with and without each signal, against plain retrieval.
 *
 *   npm run bench -- routing-generalisation        (pure code in Node, no workerd; ~1 minute)
 *
 * Data (dev sets in ../shared/data, or $ATC_DATA), tools imported with the project's importers:
 * - RestBench TMDB: the 54 operations of openapi.json (importOpenApi); 100 tasks with ordered gold
 *   solutions. Leave-one-out: for each task, the graph (static construction, eq. 5) and the task
 *   memory are built from the 99 other tasks' gold paths and texts.
 * - StableToolBench: the 2,479-operation corpus as a bare list (importToolList, template responses
 *   as response examples); 704 queries with unordered gold. Graph from the recorded gpt-3.5
 *   sequences; task memory from the other queries (leave-one-out). No ordered gold, so no
 *   later-step figure.
 * - API-Bank: the catalog's 75 APIs as a bare list (output parameters as the response schema);
 *   313 dialogues, first utterance as the task. Leave-one-sequence-out: every record with the
 *   same call sequence is held out together (313 records hold only 126 distinct sequences).
 *
 * Figures: first-step recall@5/@10 (the first gold tool for ordered sets, the gold set for
 * StableToolBench); later-step hit@5/@10 (gold next tool among k candidates after the gold
 * previous tool; tools only, Finish not counted); run candidate-set recall at ≤ 10 tools and the
 * share of tasks with every gold tool; tokens. Every variant runs on the same tasks in one run.
 * `--embeddings=local` adds the variants routing answers when the task is embedded (the offline
 * encoder of `npm run embeddings-server`; or an endpoint URL), beside the lexical ones.
 * `--prf=…`, `--api-evidence=…`, `--query-stop=…`, `--drop-common=…`, `--coord=…` add first-step
 * rows of retrieval variants tried and not kept (pseudo-relevance feedback, API-level evidence,
 * conversational stop words, common-word cut, softer coordination; bench/lib/retrieval-variants.ts),
 * each with coverage and fusion as routing applies them, against the default in the same run.
 */
import { toolPromptTokens } from "../functions/chain/tool-cost";
import { countTokens } from "../functions/text/token-count";
import {
  addTools,
  addTrajectories,
  candidateSet,
  createGraph,
  formatPromptBlock,
  learnedSuccessors,
  removeTrajectory,
  START,
  successors,
  type ToolGraph,
  type Trajectory,
} from "../functions/toolnet/graph";
import { apiSiblings } from "../functions/toolnet/api-siblings";
import { DataFlowIndex } from "../functions/toolnet/data-flow";
import { historyLeads, transitionsHelp } from "../functions/toolnet/history-calibration";
import { laterStepPrior } from "../functions/toolnet/later-step-prior";
import { openAiTool } from "../functions/toolnet/openai-tools";
import {
  DEFAULT_TUNING,
  EMBEDDINGS_WEIGHT,
  LEXICAL_LEAD,
  hybridTwoWays,
  rankByCosine,
  toolDocument,
  toolEmbeddingText,
  ToolIndex,
  type Ranked,
  type ToolDocField,
} from "../functions/toolnet/retrieval";
import { CLAUSE_WEIGHT, coverageRanking } from "../functions/toolnet/retrieval/task-clauses";
import { API_EVIDENCE_DEPTH, API_EVIDENCE_WEIGHT, withApiEvidence } from "../functions/toolnet/retrieval/api-evidence";
import { type CoveringOptions, coverTaskWords, searchCoveringWords, searchTwoWays, WORD_COVERAGE_WEIGHT } from "../functions/toolnet/retrieval/term-coverage";
import {
  DEFAULT_FUSION,
  DEFAULT_NEXT_STEP_FUSION,
  fuseFirstStep,
  fuseNextStep,
  fuseRunCandidates,
  EVIDENCE_PRIOR,
  MIN_TRANSITION_EVIDENCE,
  SIGNALS,
  type FusionWeights,
  type Signal,
} from "../functions/toolnet/signal-fusion";
import { FIRST_STEP_MIN_SIMILARITY, LATER_STEP_MIN_SIMILARITY, TaskMemory, type RememberedTask } from "../functions/toolnet/task-memory";
import type { ToolDefinition } from "../functions/tools/definition";
import { fillToK, routeStandIns } from "../functions/toolnet/route-fill";
import { callableAsAsked, needsSaidNumber, UNFIT_PENALTY, withUnfitLower } from "../functions/toolnet/task-fit";
import { embeddingsChoice, openEmbeddingVectors, type EmbeddingVectors } from "./lib/embedding-vectors";
import { apiBank, sealTools, stableToolBench, tmdb, toolAlpaca, type Dataset, type Task } from "./lib/routing-datasets";
import { machineLine, summary, table } from "./lib/stats";
import { retrievalVariants, type RetrievalVariant } from "./lib/retrieval-variants";

// ---------------------------------------------------------------------------------------------
// Measuring.

const K = [5, 10] as const;
const MAX_TOOLS = 10;
/** k of the route answers whose length and all-gold figures are measured. */
const ANSWER_K = 10;

interface Context {
  index: ToolIndex;
  flow: DataFlowIndex;
  defs: Map<string, ToolDefinition>;
  graph: ToolGraph;
  /** The tenant's graph with no history at all (cold start). */
  coldGraph: ToolGraph;
  memory: TaskMemory;
  siblings: Map<string, readonly string[]>;
  cost: (tool: string) => number;
  /** Retrieval variants asked for on the command line (`--prf`, `--api-evidence`; bench/lib/retrieval-variants.ts), by label. */
  variants: RetrievalVariant[];
  /** With `--embeddings`: every tool's vector (of the text the product embeds) and every measured task's. */
  dense?: { tools: Map<string, Float32Array>; tasks: Map<string, Float32Array> };
}

const parseWeights = (flag: string, defaults: FusionWeights): FusionWeights => {
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
const WEIGHTS = parseWeights("weights", DEFAULT_FUSION);
const NEXT_WEIGHTS = parseWeights("next-weights", DEFAULT_NEXT_STEP_FUSION);

/**
 * `--half=a` or `--half=b` measures only the tasks of one half (groups split by a hash of their
 * id; the graph and task memory still learn from every other task). Weights are tuned on half a
 * and reported on half b, so a figure on b is one the tuning never saw.
 */
const HALF = process.argv.find((a) => a.startsWith("--half="))?.slice("--half=".length);
function inHalf(group: string): boolean {
  if (HALF === undefined) return true;
  let hash = 2166136261;
  for (let i = 0; i < group.length; i += 1) hash = Math.imul(hash ^ group.charCodeAt(i), 16777619);
  return ((hash >>> 0) % 2 === 0) === (HALF === "a");
}

/** `--api-weight=W`: weight of each tool's API's backing (api-evidence.ts; 0: none); chosen on half a. */
const API_WEIGHT = Number(process.argv.find((a) => a.startsWith("--api-weight="))?.slice("--api-weight=".length) ?? API_EVIDENCE_WEIGHT);

/** `--clauses=W`: weight of the task's clauses' rankings fused with the whole task's (0: whole task only); chosen on half a. */
const WORD_COVERAGE = Number(process.argv.find((a) => a.startsWith("--word-coverage="))?.slice("--word-coverage=".length) ?? WORD_COVERAGE_WEIGHT);
const CLAUSES = Number(process.argv.find((a) => a.startsWith("--clauses="))?.slice("--clauses=".length) ?? CLAUSE_WEIGHT);

/** `--boost=field:N,…` weighs any fields of tool documents (e.g. `values:0.5,parameterDocs:0.5`; 0 leaves a field out); chosen on half a. */
const FIELD_BOOSTS: Partial<Record<ToolDocField, number>> = Object.fromEntries(
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
const UNFIT = Number(process.argv.find((a) => a.startsWith("--unfit-penalty="))?.slice("--unfit-penalty=".length) ?? UNFIT_PENALTY);

/** `--later-min-similarity=X`: how similar an earlier task must be to vote at a later step; chosen on half a. */
const LATER_MIN_SIMILARITY = Number(
  process.argv.find((a) => a.startsWith("--later-min-similarity="))?.slice("--later-min-similarity=".length) ?? LATER_STEP_MIN_SIMILARITY,
);

/** `--first-min-similarity=X`: how similar an earlier task must be to vote at the first step; chosen on half a. */
const FIRST_MIN_SIMILARITY = Number(
  process.argv.find((a) => a.startsWith("--first-min-similarity="))?.slice("--first-min-similarity=".length) ?? FIRST_STEP_MIN_SIMILARITY,
);

/** `--min-evidence=N`: learned transitions observed fewer times are left out at later steps; chosen on half a. */
const MIN_EVIDENCE = Number(process.argv.find((a) => a.startsWith("--min-evidence="))?.slice("--min-evidence=".length) ?? MIN_TRANSITION_EVIDENCE);

/** `--evidence-prior=C`: a transition observed n times weighs n / (n + C) at later steps (0: all of it); chosen on half a. */
const EVIDENCE = Number(process.argv.find((a) => a.startsWith("--evidence-prior="))?.slice("--evidence-prior=".length) ?? EVIDENCE_PRIOR);

/** `--skip-sets` leaves run candidate sets out (tuning runs). */
const SKIP_SETS = process.argv.includes("--skip-sets");

/** `--first-only` measures the first step alone (tuning runs). */
const FIRST_ONLY = process.argv.includes("--first-only");

/** `--siblings-boost=N` weighs the sibling operations' field of tool documents (0: left out of ranking); chosen on half a. */
const SIBLINGS_BOOST = Number(process.argv.find((a) => a.startsWith("--siblings-boost="))?.slice("--siblings-boost=".length) ?? DEFAULT_TUNING.boosts.siblings);
/** `--phrases-boost=N` weighs the title phrases field of tool documents (adjacent word pairs; 0: left out of ranking); chosen on half a. */
const PHRASES_BOOST = Number(process.argv.find((a) => a.startsWith("--phrases-boost="))?.slice("--phrases-boost=".length) ?? DEFAULT_TUNING.boosts.phrases);

/** `--query-saturation=K3`: Okapi k3 for terms a task repeats (Infinity: every repeat counts in full, as before); chosen on half a. */
const QUERY_SATURATION = Number(
  process.argv.find((a) => a.startsWith("--query-saturation="))?.slice("--query-saturation=".length) ?? DEFAULT_TUNING.queryTermSaturation,
);

/** `--name-lookups=N`: only the N best tools have their by-name producers placed after them when the task names an entity (0: none; default: every ranked tool, as routing does). */
const NAME_LOOKUPS = Number(process.argv.find((a) => a.startsWith("--name-lookups="))?.slice("--name-lookups=".length) ?? Number.POSITIVE_INFINITY);

/**
 * `--embeddings=local` (the offline sentence encoder, scripts/local-embeddings.ts) or
 * `--embeddings=URL --embeddings-model=NAME` (any OpenAI-compatible endpoint): first-step and
 * later-step variants whose relevance is the product's fusion of BM25 with the embeddings ranking
 * (hybridSearch), beside the lexical ones, in the same run.
 */
const EMBEDDINGS = embeddingsChoice(process.argv.slice(2));
/**
 * `--embeddings-weight=W[,W…]`: weight of the embeddings ranking in that fusion (lexical: 1);
 * several weights measure each in the same run (tuning, on half a).
 */
const DENSE_WEIGHTS = (process.argv.find((a) => a.startsWith("--embeddings-weight="))?.slice("--embeddings-weight=".length) ?? String(EMBEDDINGS_WEIGHT))
  .split(",")
  .map(Number);
/** `--embeddings-lead=S[,S…]`: share of the best BM25 score at which lexical matches lead (hybrid.ts LEXICAL_LEAD). */
const DENSE_LEADS = (process.argv.find((a) => a.startsWith("--embeddings-lead="))?.slice("--embeddings-lead=".length) ?? String(LEXICAL_LEAD))
  .split(",")
  .map(Number);
/** The variant's name, with the weight and lead when several are measured. */
const withWeight = (name: string, weight: number, lead: number): string =>
  `${name}${DENSE_WEIGHTS.length > 1 ? ` (weight ${weight})` : ""}${DENSE_LEADS.length > 1 ? ` (lead ${lead})` : ""}`;

/**
 * The task's relevance as routing computes it when the task was embedded: BM25 fused with the
 * embeddings ranking (a first step's with API evidence, a later step's without: `step`).
 */
function denseRelevance(
  ctx: Context,
  text: string,
  depth: number,
  weight: number,
  lead = LEXICAL_LEAD,
  step: "first" | "later" = "first",
): Ranked[] | undefined {
  const vector = ctx.dense?.tasks.get(text);
  if (ctx.dense === undefined || vector === undefined) return undefined;
  const both = hybridTwoWays(ctx.index, text, vector, ctx.dense.tools, {
    k: depth,
    weights: [1, weight],
    lexicalLead: lead,
    canLead: callableAsAsked(text, (tool) => needsSaidNumber(ctx.defs.get(tool))),
    siblingsOf: (tool) => ctx.siblings.get(tool) ?? [],
  });
  return step === "first" ? both.withApis : both.plain;
}

/** The search options routing uses (coverage and API evidence), with this run's weights. */
const routingSearch = (ctx: Context): CoveringOptions => ({
  coverage: WORD_COVERAGE,
  siblingsOf: (tool) => ctx.siblings.get(tool) ?? [],
  apiWeight: API_WEIGHT,
});

/** First-step variants with embeddings: retrieval fused with them, then cold and warm fusion on that relevance. */
function embeddedFirstSteps(ctx: Context, text: string, fuse: (relevance: Ranked[], history: "none" | "first") => string[]): [string, string[]][] {
  const vector = ctx.dense?.tasks.get(text);
  if (ctx.dense === undefined || vector === undefined) return [];
  const variants: [string, string[]][] = [["embeddings only (cosine)", rankByCosine(vector, ctx.dense.tools, 30).map((r) => r.name)]];
  for (const weight of DENSE_WEIGHTS)
    for (const lead of DENSE_LEADS) {
      const embedded = denseRelevance(ctx, text, 30, weight, lead) ?? [];
      const relevance = withUnfitLower(embedded, text, (tool) => needsSaidNumber(ctx.defs.get(tool)), UNFIT);
      variants.push(
        [withWeight("retrieval + embeddings", weight, lead), embedded.map((r) => r.name)],
        [withWeight("cold + embeddings: fused, no history", weight, lead), fuse(relevance, "none")],
        [withWeight("warm + embeddings: fused: all signals (first tools of history)", weight, lead), fuse(relevance, "first")],
      );
    }
  return variants;
}

/** First-step rows of each command-line retrieval variant: its ranking with coverage as routing re-ranks, then cold and warm fusion on it. */
function variantFirstSteps(ctx: Context, text: string, fuse: (relevance: Ranked[], history: "none" | "first") => string[]): [string, string[]][] {
  return ctx.variants.flatMap(({ label, search, text: asSeen, afterCoverage }): [string, string[]][] => {
    const ranked = search(text, 30);
    const covered = coverTaskWords(
      ranked,
      ctx.index.termImpacts(
        asSeen?.(text) ?? text,
        ranked.map((r) => r.name),
      ),
      WORD_COVERAGE,
    );
    const covering = afterCoverage?.(covered, ranked, text) ?? covered;
    const relevance = withUnfitLower(covering, text, (tool) => needsSaidNumber(ctx.defs.get(tool)), UNFIT);
    return [
      [`${label}: retrieval + coverage`, covering.map((r) => r.name)],
      [`${label}: cold: fused, no history`, fuse(relevance, "none")],
      [`${label}: warm: fused, first tools of history`, fuse(relevance, "first")],
    ];
  });
}

const only = (...signals: Signal[]): Set<Signal> => new Set(signals);
const without = (signal: Signal): Set<Signal> => new Set(SIGNALS.filter((s) => s !== signal));

type Tally = Map<string, number[]>;
function add(tally: Tally, key: string, value: number): void {
  const list = tally.get(key);
  if (list === undefined) tally.set(key, [value]);
  else list.push(value);
}
const mean = (values: readonly number[] | undefined): number =>
  values === undefined || values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;
const fmt = (value: number): string => (Number.isFinite(value) ? value.toFixed(3) : "–");

function recall(gold: readonly string[], found: readonly string[]): number {
  const set = new Set(found);
  return gold.filter((g) => set.has(g)).length / gold.length;
}

/** BM25 weighed by its APIs' backing, as routing searches (api-evidence.ts; `--api-weight`). */
function searchWithApis(ctx: Context, text: string, depth: number): Ranked[] {
  const siblingsOf = (tool: string) => ctx.siblings.get(tool) ?? [];
  return withApiEvidence(ctx.index.search(text, Math.max(depth, API_EVIDENCE_DEPTH)), siblingsOf, API_WEIGHT).slice(0, depth);
}

/** `ranked` re-ranked for coverage of the task's words, as routing re-ranks. */
const covered = (ctx: Context, text: string, ranked: Ranked[]): Ranked[] =>
  coverTaskWords(
    ranked,
    ctx.index.termImpacts(
      text,
      ranked.map((r) => r.name),
    ),
    WORD_COVERAGE,
  );

/** Later steps: learned transitions always fused, and as routing decides it per tenant (history-calibration.ts transitionsHelp). */
const LATER_ALWAYS = "fused, learned transitions always";
const LATER = "fused: all signals";

/** Warm first steps: history always may overrule the best match, never, and as routing decides it per tenant (history-calibration.ts). */
const WARM_ALWAYS = "warm: fused, history always may lead";
const WARM_BEST_FIRST = "warm: fused, the best match first";
const WARM = "warm: fused: all signals (first tools of history)";
/** The same, calibrated alike, without the weaker votes for the tools similar tasks used after their first. */
const WARM_FIRST_VOTES_ONLY = "warm: fused, without votes for tools used later";
const WARM_ALWAYS_FIRST_VOTES = "warm: fused, history always may lead, first votes only";
const WARM_BEST_FIRST_FIRST_VOTES = "warm: fused, the best match first, first votes only";
/** The route answer at k = 10 as routing makes it (calibrated as WARM), and its two forms. */
const WARM_ANSWER = "warm: route answer (fused, filled to k)";
const WARM_ANSWER_ALWAYS = "warm: route answer, history always may lead";
const WARM_ANSWER_BEST_FIRST = "warm: route answer, the best match first";

function firstStepRankings(ctx: Context, text: string): Map<string, string[]> {
  const plain = ctx.index.search(text, 30);
  const clauses = coverageRanking(text, (t, depth) => searchWithApis(ctx, t, depth), 30, CLAUSES);
  const covering = covered(ctx, text, clauses);
  const relevance = withUnfitLower(covering, text, (tool) => needsSaidNumber(ctx.defs.get(tool)), UNFIT);
  const firstVotes = ctx.memory.votes(text, { tools: "first", minSimilarity: FIRST_MIN_SIMILARITY });
  const allVotes = ctx.memory.votes(text, { tools: "all", minSimilarity: FIRST_MIN_SIMILARITY });
  const producersOf = (tool: string) => ctx.flow.producers(tool);
  const siblingsOf = (tool: string) => ctx.siblings.get(tool) ?? [];
  const cold = fuseFirstStep({ relevance, history: [], producersOf, siblingsOf, weights: WEIGHTS, task: text, nameLookupLeaders: NAME_LOOKUPS });
  const warmInput = {
    relevance,
    history: firstVotes,
    usedVotes: allVotes,
    producersOf,
    siblingsOf,
    weights: WEIGHTS,
    task: text,
    nameLookupLeaders: NAME_LOOKUPS,
  };
  const warm = fuseFirstStep(warmInput);
  const warmBestFirst = fuseFirstStep({ ...warmInput, historyLeads: false });
  // Another ranking (a retrieval variant, or with embeddings) fused as the default is, cold or with the first tools of history.
  const fusedWith = (ranking: Ranked[], history: "none" | "first"): string[] =>
    fuseFirstStep({
      relevance: ranking,
      history: history === "first" ? firstVotes : [],
      producersOf,
      siblingsOf,
      weights: WEIGHTS,
      task: text,
      nameLookupLeaders: NAME_LOOKUPS,
    }).map((c) => c.tool);
  // The route answer at k = 10: the fused ranking filled to k by the stand-ins routing uses.
  const answer = (fused: typeof cold, graph: ToolGraph): string[] =>
    fillToK(
      fused,
      ANSWER_K,
      routeStandIns({ index: ctx.index, graph, defs: ctx.defs, flow: ctx.flow, siblingsOf, task: text, previous: null, best: fused[0]?.tool }),
    ).ranked.map((c) => c.tool);
  return new Map([
    ["retrieval only", plain.map((r) => r.name)],
    ["retrieval, each clause's ranking fused", covering.map((r) => r.name)],
    ["retrieval, tools the task cannot call lower", withUnfitLower(plain, text, (tool) => needsSaidNumber(ctx.defs.get(tool)), UNFIT).map((r) => r.name)],
    [
      "cold: fused, no history, without lowering tools the task cannot call",
      fuseFirstStep({ relevance: covering, history: [], producersOf, siblingsOf, weights: WEIGHTS, task: text, nameLookupLeaders: NAME_LOOKUPS }).map(
        (c) => c.tool,
      ),
    ],
    ["+ task history (first tools)", fuseFirstStep({ relevance, history: firstVotes, weights: WEIGHTS }).map((c) => c.tool)],
    ["+ task history (all tools)", fuseFirstStep({ relevance, history: allVotes, weights: WEIGHTS }).map((c) => c.tool)],
    ["+ producers of relevant tools' inputs", fuseFirstStep({ relevance, history: [], producersOf, weights: WEIGHTS }).map((c) => c.tool)],
    ["+ operations of the same API", fuseFirstStep({ relevance, history: [], siblingsOf, weights: WEIGHTS }).map((c) => c.tool)],
    ["cold: fused, no history", cold.map((c) => c.tool)],
    [
      "cold: fused, no history, without API evidence",
      fusedWith(
        withUnfitLower(covered(ctx, text, plain), text, (tool) => needsSaidNumber(ctx.defs.get(tool)), UNFIT),
        "none",
      ),
    ],
    [
      "cold: fused, no history, same-API operations raised too",
      fuseFirstStep({
        relevance,
        history: [],
        producersOf,
        siblingsOf,
        weights: WEIGHTS,
        task: text,
        nameLookupLeaders: NAME_LOOKUPS,
        siblingsWidenOnly: false,
      }).map((c) => c.tool),
    ],
    [
      "cold: fused, no history, best match not kept first",
      fuseFirstStep({
        relevance,
        history: [],
        producersOf,
        siblingsOf,
        weights: WEIGHTS,
        task: text,
        nameLookupLeaders: NAME_LOOKUPS,
        bestMatchLeads: false,
      }).map((c) => c.tool),
    ],
    ["cold: route answer (fused, filled to k)", answer(cold, ctx.coldGraph)],
    [WARM_ALWAYS, warm.map((c) => c.tool)],
    [WARM_ALWAYS_FIRST_VOTES, fuseFirstStep({ ...warmInput, usedVotes: [] }).map((c) => c.tool)],
    [WARM_BEST_FIRST_FIRST_VOTES, fuseFirstStep({ ...warmInput, usedVotes: [], historyLeads: false }).map((c) => c.tool)],
    [
      "warm: fused: all signals (all tools of history)",
      fuseFirstStep({ relevance, history: allVotes, producersOf, siblingsOf, weights: WEIGHTS, task: text, nameLookupLeaders: NAME_LOOKUPS }).map(
        (c) => c.tool,
      ),
    ],
    [WARM_ANSWER_ALWAYS, answer(warm, ctx.graph)],
    [WARM_ANSWER_BEST_FIRST, answer(warmBestFirst, ctx.graph)],
    [WARM_BEST_FIRST, warmBestFirst.map((c) => c.tool)],
    ...variantFirstSteps(ctx, text, fusedWith),
    ...embeddedFirstSteps(ctx, text, fusedWith),
  ]);
}

function laterStepRankings(ctx: Context, text: string, relevance: readonly Ranked[], previous: string): Map<string, string[]> {
  const history = ctx.memory.votes(text, { tools: { after: previous }, minSimilarity: LATER_MIN_SIMILARITY });
  const input = {
    previous,
    learned: learnedSuccessors(ctx.graph, previous),
    relevance,
    dataFlow: ctx.flow.successors(previous),
    history,
    prior: laterStepPrior(ctx.graph),
    weights: NEXT_WEIGHTS,
    minEvidence: MIN_EVIDENCE,
    evidencePrior: EVIDENCE,
  };
  return new Map([
    ["eq. 4 graph only (today)", successors(ctx.graph, previous, 10).map((r) => r.tool)],
    ["retrieval only", relevance.map((r) => r.name).filter((t) => t !== previous)],
    [LATER_ALWAYS, fuseNextStep(input).map((c) => c.tool)],
    ["fused − transition", fuseNextStep({ ...input, signals: without("transition") }).map((c) => c.tool)],
    ["fused, transitions seen once too", fuseNextStep({ ...input, minEvidence: 1 }).map((c) => c.tool)],
    ["fused − data flow", fuseNextStep({ ...input, signals: without("dataFlow") }).map((c) => c.tool)],
    ["fused − relevance", fuseNextStep({ ...input, signals: without("relevance") }).map((c) => c.tool)],
    ["fused − task history", fuseNextStep({ ...input, signals: without("history") }).map((c) => c.tool)],
    ["fused − later-step prior", fuseNextStep({ ...input, signals: without("prior") }).map((c) => c.tool)],
    ...laterWithEmbeddings(ctx, text, input),
  ]);
}

/** The fused later step with the relevance routing uses when the task was embedded (the Worker embeds it at every step). */
function laterWithEmbeddings(ctx: Context, text: string, input: Parameters<typeof fuseNextStep>[0]): [string, string[]][] {
  return DENSE_WEIGHTS.flatMap((weight) =>
    DENSE_LEADS.flatMap((lead): [string, string[]][] => {
      const embedded = denseRelevance(ctx, text, 30, weight, lead, "later");
      return embedded === undefined
        ? []
        : [[withWeight("fused + embeddings: all signals", weight, lead), fuseNextStep({ ...input, relevance: embedded }).map((c) => c.tool)]];
    }),
  );
}

function candidateSets(ctx: Context, text: string): Map<string, string[]> {
  const unfit = (tool: string) => needsSaidNumber(ctx.defs.get(tool));
  const plain = withUnfitLower(ctx.index.search(text, 30), text, unfit, UNFIT);
  const relevance = withUnfitLower(searchCoveringWords(ctx.index, text, 30, routingSearch(ctx)), text, unfit, UNFIT);
  const history = ctx.memory.votes(text, { tools: "all" });
  const base = {
    task: text,
    nameLookupLeaders: NAME_LOOKUPS,
    relevance,
    history,
    seeds: 6,
    learnedAfter: (tool: string) => (ctx.graph.tools.has(tool) ? learnedSuccessors(ctx.graph, tool) : []),
    dataFlowAfter: (tool: string) => ctx.flow.successors(tool),
    producersOf: (tool: string) => ctx.flow.producers(tool),
    siblingsOf: (tool: string) => ctx.siblings.get(tool) ?? [],
    maxTools: MAX_TOOLS,
    tokenBudget: Number.POSITIVE_INFINITY,
    costOf: ctx.cost,
    weights: WEIGHTS,
  };
  const seeds = plain.slice(0, 6).map((r) => r.name);
  // Today's candidate set: retrieval seeds + graph successors, whole definitions priced at 4 chars a token.
  const today = candidateSet(ctx.graph, seeds, {
    hops: 2,
    maxTools: 12,
    tokenBudget: 12_000,
    costOf: (tool) => Math.ceil(JSON.stringify(ctx.defs.get(tool) ?? {}).length / 4),
  }).candidates.map((c) => c.tool);
  return new Map([
    ["retrieval top 10", plain.slice(0, MAX_TOOLS).map((r) => r.name)],
    ["today: seeds + graph (≤12, 12k est. tokens)", today],
    ["fused: all signals", fuseRunCandidates(base).candidates.map((c) => c.tool)],
    ["fused − history", fuseRunCandidates({ ...base, signals: without("history") }).candidates.map((c) => c.tool)],
    ["fused − transition", fuseRunCandidates({ ...base, signals: without("transition") }).candidates.map((c) => c.tool)],
    ["fused − data flow", fuseRunCandidates({ ...base, signals: without("dataFlow") }).candidates.map((c) => c.tool)],
    ["fused − same API", fuseRunCandidates({ ...base, signals: without("sibling") }).candidates.map((c) => c.tool)],
    ["fused: relevance + data flow only", fuseRunCandidates({ ...base, signals: only("relevance", "dataFlow") }).candidates.map((c) => c.tool)],
  ]);
}

interface Report {
  /** Why the gold next tool was missed at k = 5 by the fused ranking (one count per transition). */
  misses: Tally;
  first: Tally;
  later: Tally;
  sets: Tally;
  tokens: Tally;
  timing: Tally;
}

async function evaluate(dataset: Dataset, vectors: EmbeddingVectors | undefined): Promise<Report> {
  const defs = new Map(dataset.defs.map((d) => [d.name, d]));
  const siblings = apiSiblings(dataset.defs);
  const documents = dataset.defs.map((d) => toolDocument(d, { siblings: (siblings.get(d.name) ?? []).flatMap((name) => defs.get(name) ?? []) }));
  const index = ToolIndex.build(documents, {
    boosts: { ...DEFAULT_TUNING.boosts, siblings: SIBLINGS_BOOST, phrases: PHRASES_BOOST, ...FIELD_BOOSTS },
    queryTermSaturation: QUERY_SATURATION,
  });
  const flow = new DataFlowIndex(defs);
  const costs = new Map<string, number>();
  const cost = (tool: string): number => {
    let c = costs.get(tool);
    const def = defs.get(tool);
    if (c === undefined && def !== undefined) costs.set(tool, (c = toolPromptTokens(def, `bench:${tool}`)));
    return c ?? 0;
  };
  const graph = createGraph();
  addTools(graph, [...defs.keys()]);
  addTrajectories(graph, dataset.background, { unknownTools: "skip" });
  const asTrajectory = (t: Task): Trajectory => ({ id: t.id, tools: t.gold.filter((g) => defs.has(g)) });
  const taskTrajectories = dataset.ordered ? dataset.tasks.map(asTrajectory).filter((t) => t.tools.length > 0) : [];
  addTrajectories(graph, taskTrajectories, { unknownTools: "skip" });
  const remembered: RememberedTask[] = dataset.tasks.map((t) => ({ id: t.id, task: t.text, tools: t.gold }));
  const memory = TaskMemory.build(remembered);
  const coldGraph = createGraph();
  addTools(coldGraph, [...defs.keys()]);
  const boosts = { ...DEFAULT_TUNING.boosts, siblings: SIBLINGS_BOOST, phrases: PHRASES_BOOST, ...FIELD_BOOSTS };
  const variants = retrievalVariants({ index, docs: documents, defs, boosts });
  const ctx: Context = { index, flow, defs, graph, coldGraph, memory, siblings, cost, variants, dense: await datasetVectors(dataset, vectors) };
  const byGroup = new Map<string, Task[]>();
  for (const t of dataset.tasks) byGroup.set(t.group, [...(byGroup.get(t.group) ?? []), t]);

  /** Puts held-out tasks back into the task memory and the graph. */
  const restore = (held: readonly Task[]): void => {
    for (const t of held) {
      memory.add({ id: t.id, task: t.text, tools: t.gold });
      if (dataset.ordered) {
        const trajectory = asTrajectory(t);
        if (trajectory.tools.length > 0) addTrajectories(graph, [trajectory], { unknownTools: "skip" });
      }
    }
  };
  const report: Report = { misses: new Map(), first: new Map(), later: new Map(), sets: new Map(), tokens: new Map(), timing: new Map() };
  const calibration: CalibrationRow[] = [];
  const transitionSteps: TransitionStep[] = [];
  for (const task of dataset.tasks) {
    if (!inHalf(task.group)) continue;
    // Hold out the task (and its group): nothing it taught may help it.
    const held = byGroup.get(task.group) ?? [task];
    for (const t of held) {
      memory.remove(t.id);
      if (dataset.ordered) removeTrajectory(graph, t.id);
    }
    const gold = task.gold;
    const firstGold = dataset.ordered ? gold.slice(0, 1) : gold;
    const distinctGold = [...new Set(gold.filter((g) => defs.has(g)))];
    const rankings = firstStepRankings(ctx, task.text);
    for (const [variant, ranking] of rankings) addFirstStep(report, variant, { firstGold, distinctGold }, ranking);
    calibration.push({
      group: task.group,
      voted: ctx.memory.votes(task.text, { tools: "first", minSimilarity: FIRST_MIN_SIMILARITY })[0]?.name ?? null,
      best: rankings.get("cold: fused, no history")?.[0] ?? null,
      firstGold,
      distinctGold,
      leads: rankings.get(WARM_ALWAYS) ?? [],
      bestFirst: rankings.get(WARM_BEST_FIRST) ?? [],
      leadsFirstVotes: rankings.get(WARM_ALWAYS_FIRST_VOTES) ?? [],
      bestFirstFirstVotes: rankings.get(WARM_BEST_FIRST_FIRST_VOTES) ?? [],
      answerLeads: rankings.get(WARM_ANSWER_ALWAYS) ?? [],
      answerBestFirst: rankings.get(WARM_ANSWER_BEST_FIRST) ?? [],
    });
    if (process.env.FIRST_DEBUG !== undefined) debugFirstStep(ctx, task.text, firstGold);
    // A later step ranks by the task's words without API evidence (tenant-routing.ts #relevance).
    const relevance = searchTwoWays(index, task.text, 30, routingSearch(ctx)).plain;
    if (FIRST_ONLY) {
      restore(held);
      continue;
    }
    if (dataset.ordered) {
      for (let i = 1; i < gold.length; i += 1) {
        const previous = gold[i - 1];
        const next = gold[i];
        if (previous === undefined || next === undefined || !defs.has(previous) || previous === next) continue;
        if (!defs.has(next)) {
          add(report.misses, "gold next tool is not a tool of the catalog", 1);
          continue;
        }
        const rankings = laterStepRankings(ctx, task.text, relevance, previous);
        for (const [variant, ranking] of rankings) {
          for (const k of K) add(report.later, `${variant}|${k}`, ranking.slice(0, k).includes(next) ? 1 : 0);
        }
        transitionSteps.push({ group: task.group, next, with: rankings.get(LATER_ALWAYS) ?? [], without: rankings.get("fused − transition") ?? [] });
        if (process.env.LATER_DEBUG !== undefined) debugLaterStep(ctx, task.text, relevance, previous, next, rankings);
        if (process.env.ROUTING_DEBUG !== undefined && !(rankings.get(LATER_ALWAYS) ?? []).slice(0, 5).includes(next)) {
          console.log(
            `LATER ${previous} > ${next} | ${task.text.slice(0, 100)}\n  fused ${(rankings.get(LATER_ALWAYS) ?? []).slice(0, 6).join(", ")}\n  rel ${relevance
              .slice(0, 6)
              .map((r) => r.name)
              .join(", ")}\n  learned ${learnedSuccessors(ctx.graph, previous)
              .slice(0, 6)
              .map((l) => l.tool)
              .join(", ")}\n  flow ${ctx.flow
              .successors(previous)
              .slice(0, 8)
              .map((l) => l.to)
              .join(", ")}`,
          );
        }
        add(report.misses, missReason(ctx, relevance, previous, next, rankings.get(LATER_ALWAYS) ?? []), 1);
      }
    }
    if (SKIP_SETS) {
      restore(held);
      continue;
    }
    const sets = candidateSets(ctx, task.text);
    if (process.env.ROUTING_DEBUG !== undefined) {
      const fused = sets.get("fused: all signals") ?? [];
      const missed = gold.filter((g) => !fused.includes(g));
      if (missed.length > 0)
        console.log(
          `MISS ${task.text}\n  gold ${gold.join(" > ")}\n  missed ${missed.join(", ")}\n  set ${fused.join(", ")}\n  rel ${relevance
            .slice(0, 10)
            .map((r) => r.name)
            .join(", ")}\n  hist ${memory
            .votes(task.text, { tools: "all" })
            .slice(0, 6)
            .map((v) => v.name)
            .join(", ")}`,
        );
    }
    for (const [variant, set] of sets) {
      add(report.sets, `${variant}|recall`, recall(gold, set.slice(0, variant.startsWith("today") ? 12 : MAX_TOOLS)));
      add(report.sets, `${variant}|all`, recall(gold, set) === 1 ? 1 : 0);
      add(report.sets, `${variant}|size`, set.length);
      add(
        report.sets,
        `${variant}|tokens`,
        set.reduce((sum, tool) => sum + cost(tool), 0),
      );
      add(
        report.sets,
        `${variant}|wholeDefTokens`,
        set.reduce((sum, tool) => sum + Math.ceil(JSON.stringify(defs.get(tool) ?? {}).length / 4), 0),
      );
    }
    routingStepTokens(ctx, task, relevance, report.tokens);
    timeSteps(ctx, task, report.timing);
    restore(held);
  }
  addCalibrated(report, calibration);
  addTransitionsPerTenant(report, transitionSteps);
  return report;
}

/** A later step as the per-tenant transitions variant reads it: the gold next tool, fused with and without learned transitions. */
interface TransitionStep {
  group: string;
  next: string;
  with: readonly string[];
  without: readonly string[];
}

/**
 * The later step as routing makes it: learned transitions take part unless the tenant's other
 * tasks' later steps (the task's group left out; routing replays its 64 most recent) hit less
 * often at k = 5 with them than without (history-calibration.ts transitionsHelp).
 */
function addTransitionsPerTenant(report: Report, steps: readonly TransitionStep[]): void {
  const hits = (ranking: readonly string[], next: string) => (ranking.slice(0, 5).includes(next) ? 1 : 0);
  const byGroup = new Map<string, { steps: number; with: number; without: number }>();
  const total = { steps: 0, with: 0, without: 0 };
  for (const step of steps) {
    const own = byGroup.get(step.group) ?? { steps: 0, with: 0, without: 0 };
    for (const tally of [own, total]) {
      tally.steps += 1;
      tally.with += hits(step.with, step.next);
      tally.without += hits(step.without, step.next);
    }
    byGroup.set(step.group, own);
  }
  for (const step of steps) {
    const own = byGroup.get(step.group) ?? { steps: 0, with: 0, without: 0 };
    const others = { steps: total.steps - own.steps, with: total.with - own.with, without: total.without - own.without };
    const ranking = transitionsHelp(others) ? step.with : step.without;
    for (const k of K) add(report.later, `${LATER}|${k}`, ranking.slice(0, k).includes(step.next) ? 1 : 0);
  }
}

/** One measured task's first step as the calibrated variant reads it. */
interface CalibrationRow {
  group: string;
  /** History's first vote (null: no similar task voted) and the cold ranking's first tool. */
  voted: string | null;
  best: string | null;
  firstGold: readonly string[];
  distinctGold: readonly string[];
  /** The warm ranking as today (history may overrule the best match) and with the best match first. */
  leads: readonly string[];
  bestFirst: readonly string[];
  /** The same two without votes for the tools similar tasks used after their first (the ablation). */
  leadsFirstVotes: readonly string[];
  bestFirstFirstVotes: readonly string[];
  /** The route answer at k = 10 from `leads` and from `bestFirst`. */
  answerLeads: readonly string[];
  answerBestFirst: readonly string[];
}

/**
 * The warm first step as routing makes it: history may overrule the best match only where the
 * tenant's other tasks (the task's group left out; routing samples its 64 most recent) show its
 * first vote right more often than the words' first choice (history-calibration.ts). Scored
 * after the pass, once every task's two outcomes are known.
 */
function addCalibrated(report: Report, rows: readonly CalibrationRow[]): void {
  type Tally = { voted: number; history: number; words: number };
  const plus = (a: Tally, b: Tally): Tally => ({ voted: a.voted + b.voted, history: a.history + b.history, words: a.words + b.words });
  const none: Tally = { voted: 0, history: 0, words: 0 };
  // Right: the choice is the first gold tool (StableToolBench: one of its gold set).
  const outcome = (row: CalibrationRow): Tally =>
    row.voted === null
      ? none
      : { voted: 1, history: row.firstGold.includes(row.voted) ? 1 : 0, words: row.best !== null && row.firstGold.includes(row.best) ? 1 : 0 };
  const byGroup = new Map<string, Tally>();
  let total = none;
  for (const row of rows) {
    byGroup.set(row.group, plus(byGroup.get(row.group) ?? none, outcome(row)));
    total = plus(total, outcome(row));
  }
  for (const row of rows) {
    const own = byGroup.get(row.group) ?? none;
    const others = { voted: total.voted - own.voted, history: total.history - own.history, words: total.words - own.words };
    const leads = historyLeads(others);
    addFirstStep(report, WARM, row, leads ? row.leads : row.bestFirst);
    addFirstStep(report, WARM_FIRST_VOTES_ONLY, row, leads ? row.leadsFirstVotes : row.bestFirstFirstVotes);
    addFirstStep(report, WARM_ANSWER, row, leads ? row.answerLeads : row.answerBestFirst);
  }
}

function addFirstStep(report: Report, variant: string, row: Pick<CalibrationRow, "firstGold" | "distinctGold">, ranking: readonly string[]): void {
  add(report.first, `${variant}|1`, recall(row.firstGold, ranking.slice(0, 1)));
  for (const k of K) add(report.first, `${variant}|${k}`, recall(row.firstGold, ranking.slice(0, k)));
  if (row.distinctGold.length >= 2) add(report.first, `${variant}|all10`, recall(row.distinctGold, ranking.slice(0, ANSWER_K)) === 1 ? 1 : 0);
  add(report.first, `${variant}|length`, Math.min(ANSWER_K, ranking.length));
}

/** Every tool's vector, of the text the product embeds (toolEmbeddingText), and every measured task's. */
async function datasetVectors(dataset: Dataset, vectors: EmbeddingVectors | undefined): Promise<Context["dense"]> {
  if (vectors === undefined) return undefined;
  const toolVectors = await vectors.of(dataset.defs.map(toolEmbeddingText));
  const texts = [...new Set(dataset.tasks.filter((t) => inHalf(t.group)).map((t) => t.text))];
  const taskVectors = await vectors.of(texts);
  return {
    tools: new Map(dataset.defs.flatMap((d, i) => (toolVectors[i] === undefined ? [] : [[d.name, toolVectors[i]] as const]))),
    tasks: new Map(texts.flatMap((text, i) => (taskVectors[i] === undefined ? [] : [[text, taskVectors[i]] as const]))),
  };
}

/** Why the fused later-step ranking missed `next` at k = 5: which signals knew it, and how high relevance put it. */
function missReason(ctx: Context, relevance: readonly Ranked[], previous: string, next: string, fused: readonly string[]): string {
  const rank = fused.indexOf(next);
  if (rank >= 0 && rank < 5) return "hit@5";
  const learned = learnedSuccessors(ctx.graph, previous).some((l) => l.tool === next);
  const flow = ctx.flow.successors(previous).some((l) => l.to === next);
  const relevanceRank = relevance.findIndex((r) => r.name === next);
  const relevant = relevanceRank < 0 ? "not retrieved" : relevanceRank < 5 ? "relevance top 5" : relevanceRank < 10 ? "relevance 6–10" : "relevance >10";
  return `miss: ${learned ? "learned" : "no learned transition"}, ${flow ? "data-flow link" : "no data-flow link"}, ${relevant}`;
}

/** Tokens of one routing answer at k = 5 (prompt block and OpenAI tools array), first and later step. */
function routingStepTokens(ctx: Context, task: Task, relevance: readonly Ranked[], tally: Tally): void {
  const describe = (tool: string): string => (ctx.defs.get(tool)?.summary ?? ctx.defs.get(tool)?.description ?? "").slice(0, 160);
  const steps: { previous: string; tools: string[] }[] = [
    {
      previous: START,
      tools: fuseFirstStep({ relevance, history: ctx.memory.votes(task.text) })
        .slice(0, 5)
        .map((c) => c.tool),
    },
  ];
  const previous = task.gold[0];
  if (previous !== undefined && ctx.defs.has(previous)) {
    const input = { previous, learned: learnedSuccessors(ctx.graph, previous), relevance, dataFlow: ctx.flow.successors(previous) };
    steps.push({
      previous,
      tools: fuseNextStep(input)
        .slice(0, 5)
        .map((c) => c.tool),
    });
  }
  for (const step of steps) {
    const prompt = formatPromptBlock({ previous: step.previous, candidates: step.tools.map((tool, i) => ({ tool, weight: 1000 - i, exact: 1 })), describe });
    const tools = step.tools.flatMap((tool) => {
      const def = ctx.defs.get(tool);
      return def === undefined ? [] : [openAiTool(def)];
    });
    add(tally, "prompt", countTokens(prompt));
    add(tally, "tools", countTokens(JSON.stringify(tools)));
  }
}

/** In-process time of one routing step, today's path against the fused one (same tasks, same run). */
function timeSteps(ctx: Context, task: Task, tally: Tally): void {
  const previous = task.gold[0];
  let t = performance.now();
  ctx.index.search(task.text, 8);
  add(tally, "first: retrieval (today)", performance.now() - t);
  t = performance.now();
  fuseFirstStep({ relevance: ctx.index.search(task.text, 30), history: ctx.memory.votes(task.text) }).slice(0, 8);
  add(tally, "first: fused", performance.now() - t);
  // The route answer's first step: with data flow, same-API operations and name lookups (`--name-lookups=0` for none).
  t = performance.now();
  fuseFirstStep({
    task: task.text,
    nameLookupLeaders: NAME_LOOKUPS,
    relevance: ctx.index.search(task.text, 30),
    history: ctx.memory.votes(task.text, { tools: "first" }),
    producersOf: (tool) => ctx.flow.producers(tool),
    siblingsOf: (tool) => ctx.siblings.get(tool) ?? [],
  }).slice(0, 8);
  add(tally, "first: fused, all signals", performance.now() - t);
  if (previous === undefined || !ctx.defs.has(previous)) return;
  t = performance.now();
  successors(ctx.graph, previous, 8, { includeEnd: true });
  add(tally, "later: eq. 4 successors (today)", performance.now() - t);
  // The prior is cached per graph version; this loop changes the graph before every task, a
  // tenant's object only when trajectories arrive, so it is computed outside the timed step.
  laterStepPrior(ctx.graph);
  t = performance.now();
  fuseNextStep({
    previous,
    learned: learnedSuccessors(ctx.graph, previous),
    relevance: ctx.index.search(task.text, 30),
    dataFlow: ctx.flow.successors(previous),
    history: ctx.memory.votes(task.text, { tools: { after: previous }, minSimilarity: LATER_MIN_SIMILARITY }),
    prior: laterStepPrior(ctx.graph),
  }).slice(0, 8);
  add(tally, "later: fused", performance.now() - t);
  // The previous release's later step, timed second so any warm-cache advantage is its own.
  t = performance.now();
  fuseNextStep({
    previous,
    learned: learnedSuccessors(ctx.graph, previous),
    relevance: ctx.index.search(task.text, 30),
    dataFlow: ctx.flow.successors(previous),
  }).slice(0, 8);
  add(tally, "later: fused without task votes and prior (before)", performance.now() - t);
}

function variantsOf(tally: Tally, suffix: string): string[] {
  return [...new Set([...tally.keys()].filter((key) => key.endsWith(`|${suffix}`)).map((key) => key.slice(0, key.lastIndexOf("|"))))];
}

function print(dataset: Dataset, report: Report): void {
  const measured = dataset.tasks.filter((t) => inHalf(t.group)).length;
  console.log(
    `\n## ${dataset.label}: ${dataset.defs.length} tools, ${dataset.tasks.length} tasks${HALF === undefined ? "" : `, ${measured} measured (half ${HALF})`}`,
  );
  console.log(`\nFirst step (${dataset.ordered ? "first gold tool" : "gold set"} recall):`);
  const multi = report.first.get("retrieval only|all10")?.length ?? 0;
  const short = (v: string): number =>
    (report.first.get(`${v}|length`) ?? []).filter((n) => n < ANSWER_K).length / Math.max(1, report.first.get(`${v}|length`)?.length ?? 0);
  console.log(
    table(
      [
        "variant",
        "hit@1",
        "recall@5",
        "recall@10",
        `all gold in top ${ANSWER_K} (${multi} multi-tool tasks)`,
        `answer length at k = ${ANSWER_K}`,
        `answers < ${ANSWER_K}`,
      ],
      variantsOf(report.first, "5").map((v) => [
        v,
        fmt(mean(report.first.get(`${v}|1`))),
        fmt(mean(report.first.get(`${v}|5`))),
        fmt(mean(report.first.get(`${v}|10`))),
        fmt(mean(report.first.get(`${v}|all10`))),
        mean(report.first.get(`${v}|length`)).toFixed(2),
        fmt(short(v)),
      ]),
    ),
  );
  if (dataset.ordered && !FIRST_ONLY) {
    const n = report.later.get("fused: all signals|5")?.length ?? 0;
    console.log(`\nLater steps (${n} gold transitions to a tool of the catalog; hit = gold next tool among k candidates):`);
    console.log(
      table(
        ["variant", "hit@5", "hit@10"],
        variantsOf(report.later, "5").map((v) => [v, fmt(mean(report.later.get(`${v}|5`))), fmt(mean(report.later.get(`${v}|10`)))]),
      ),
    );
    console.log(`\nLater steps, fused ranking at k = 5: where each gold transition went (what the signals knew of the gold next tool):`);
    const total = [...report.misses.values()].reduce((sum, list) => sum + list.length, 0);
    console.log(
      table(
        ["outcome", "transitions", "share"],
        [...report.misses].sort((a, b) => b[1].length - a[1].length).map(([reason, list]) => [reason, String(list.length), fmt(list.length / total)]),
      ),
    );
  }
  if (FIRST_ONLY || SKIP_SETS) return;
  console.log(`\nRun candidate sets (≤ ${MAX_TOOLS} tools unless named; tokens = what the run prompt shows, o200k_base):`);
  console.log(
    table(
      ["variant", "recall", "tasks with every gold tool", "tools", "prompt tokens", "whole-definition est. tokens"],
      variantsOf(report.sets, "recall").map((v) => [
        v,
        fmt(mean(report.sets.get(`${v}|recall`))),
        fmt(mean(report.sets.get(`${v}|all`))),
        mean(report.sets.get(`${v}|size`)).toFixed(1),
        Math.round(mean(report.sets.get(`${v}|tokens`))).toLocaleString("en-US"),
        Math.round(mean(report.sets.get(`${v}|wholeDefTokens`))).toLocaleString("en-US"),
      ]),
    ),
  );
  console.log(
    `\nTokens per routing step (k = 5): prompt block ${Math.round(mean(report.tokens.get("prompt")))}, OpenAI tools array ${Math.round(mean(report.tokens.get("tools")))}`,
  );
  console.log(
    `In-process step time p50 / p99 (ms): ${[...report.timing.entries()]
      .map(([label, values]) => {
        const s = summary([...values].sort((a, b) => a - b));
        return `${label} ${s.p50.toFixed(3)} / ${s.p99.toFixed(3)}`;
      })
      .join("; ")}`,
  );
}

async function main(): Promise<void> {
  console.log(`# routing-generalisation — ${machineLine()}`);
  const only = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  const loaders: [string, () => Promise<Dataset>][] = [
    ["tmdb", tmdb],
    ["stb", stableToolBench],
    ["apibank", apiBank],
    ["seal", sealTools],
    ["alpaca", toolAlpaca],
  ];
  const vectors = EMBEDDINGS === undefined ? undefined : await openEmbeddingVectors(process.cwd(), EMBEDDINGS);
  if (vectors !== undefined) console.log(`\nEmbeddings: ${vectors.model} (${EMBEDDINGS?.endpoint}), weight ${DENSE_WEIGHTS.join(" / ")} against BM25's 1`);
  try {
    for (const [key, load] of loaders) {
      if (only.length > 0 && !only.includes(key)) continue;
      const dataset = await load();
      const started = performance.now();
      const report = await evaluate(dataset, vectors);
      print(dataset, report);
      console.log(`(${((performance.now() - started) / 1000).toFixed(1)} s)`);
    }
  } finally {
    await vectors?.close();
  }
}

await main();

/** FIRST_DEBUG=1|warm|VARIANT: tasks where that first-step variant's top 5 differs in recall from FIRST_DEBUG_BASE's (default plain retrieval). */
function debugFirstStep(ctx: Context, text: string, gold: readonly string[]): void {
  const rankings = firstStepRankings(ctx, text);
  const asked = process.env.FIRST_DEBUG ?? "";
  const variant = rankings.has(asked) ? asked : asked === "warm" ? WARM_ALWAYS : "cold: fused, no history";
  const plain = rankings.get(process.env.FIRST_DEBUG_BASE ?? "retrieval only") ?? [];
  const fused = rankings.get(variant) ?? [];
  const a = recall(gold, plain.slice(0, 5));
  const b = recall(gold, fused.slice(0, 5));
  if (process.env.FIRST_DEBUG_MISSES !== undefined) {
    if (b < 1)
      console.log(`MISS ${text.slice(0, 200)}\n  gold ${gold.map((g) => `${g}@${fused.indexOf(g) + 1}`).join(", ")}\n  fused ${fused.slice(0, 8).join(", ")}`);
    return;
  }
  if (a === b) return;
  console.log(
    `${b > a ? "GAIN" : "LOSS"} ${text.slice(0, 140)}\n  gold ${gold.join(", ")}\n  plain ${plain.slice(0, 6).join(", ")}\n  fused ${fused.slice(0, 6).join(", ")}`,
  );
}

/**
 * LATER_DEBUG=VARIANT: later steps where that variant's top 5 holds the gold next tool and
 * LATER_DEBUG_BASE's (default LATER_ALWAYS) misses it, with what each signal offered.
 */
function debugLaterStep(ctx: Context, text: string, relevance: readonly Ranked[], previous: string, next: string, rankings: Map<string, string[]>): void {
  const base = rankings.get(process.env.LATER_DEBUG_BASE ?? LATER_ALWAYS) ?? [];
  const variant = rankings.get(process.env.LATER_DEBUG ?? "") ?? [];
  if (!variant.slice(0, 5).includes(next) || base.slice(0, 5).includes(next)) return;
  const learned = learnedSuccessors(ctx.graph, previous);
  const departures = learned.reduce((sum, l) => sum + l.observed, 0);
  console.log(
    `HOLDS ${previous} > ${next} | ${text.slice(0, 160)}\n  base ${base.slice(0, 6).join(", ")}\n  variant ${variant.slice(0, 6).join(", ")}` +
      `\n  rel ${relevance
        .slice(0, 8)
        .map((r) => `${r.name}:${(r.score / (relevance.find((b) => b.name !== previous)?.score ?? 1)).toFixed(2)}`)
        .join(", ")} (gold at ${relevance.findIndex((r) => r.name === next) + 1})` +
      `\n  learned (${departures} departures) ${learned
        .slice(0, 8)
        .map((l) => `${l.tool}×${l.observed}@${relevance.findIndex((r) => r.name === l.tool) + 1}~${relatedness(ctx, text, previous, l.tool).toFixed(2)}`)
        .join(", ")}` +
      `\n  history ${ctx.memory
        .votes(text, { tools: { after: previous }, minSimilarity: LATER_MIN_SIMILARITY })
        .map((v) => `${v.name}×${v.tasks}`)
        .join(", ")}`,
  );
}

/** The similarity of the task to the most similar remembered task that took previous → next (debugging). */
function relatedness(ctx: Context, text: string, previous: string, next: string): number {
  for (const near of ctx.memory.nearest(text, 1_000_000, 0)) {
    if (near.tools.some((tool, i) => tool === previous && near.tools[i + 1] === next)) return near.similarity;
  }
  return 0;
}
