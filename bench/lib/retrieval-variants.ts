import { apiSiblings } from "../../functions/toolnet/api-siblings";
import { mixApiScores, withApiEvidence, type ApiEvidenceSettings, type ApiMix, type ApiScoring } from "./api-evidence";
import { queryWords, termOf } from "../../functions/toolnet/retrieval/analyze";
import { sortRanked, type Ranked } from "../../functions/toolnet/retrieval/ranked";
import { searchWithFeedback, type FeedbackIndex, type FeedbackSettings } from "./pseudo-feedback";
import { TOOL_DOC_FIELDS, type ToolDoc } from "../../functions/toolnet/retrieval/tool-document";
import { ToolIndex } from "../../functions/toolnet/retrieval/tool-index";
import type { ToolDefinition } from "../../functions/tools/definition";
import { DocumentTerms } from "./document-terms";

/**
 * Retrieval variants measured beside the default (bench/routing-generalisation.ts), each a
 * search that replaces plain BM25 before coverage and fusion:
 *
 *   --prf=M:N:B[:diverse][,…]    pseudo-relevance feedback: the M best tools' N heaviest words at weight B (diverse: the M best after coverage)
 *   --prf-max-share=S            words more than share S of tools have are not feedback words (default 0.1)
 *   --api-evidence=L:MODE[:F…][,…] each tool's score mixed with its API's (MODE max, sum, mean, topM, doc; const: the same for all, a control)
 *                                at weight L; flags F: capped, scaled or penalty (how it mixes, api-evidence.ts), first (the best match keeps
 *                                its place), after (applied to the order coverage chose, APIs scored before coverage)
 *   --api-depth=D                how deep the ranking whose APIs are scored reaches (default 100)
 *   --query-stop=W+W+…[,W+W+…]   words left out of the task (search and coverage), each list one variant
 *   --drop-common=S[,S…]         task words that more than share S of the catalog's tools have are left out (search and coverage)
 *   --coord=G[,G…]               MiniSearch's coordination factor (score × matched terms) as score × matched^G (1: as today)
 */

const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

const FEEDBACK_SPECS: FeedbackSettings[] = (arg("prf")?.split(",") ?? []).map((spec) => {
  const [docs, terms, weight] = spec.split(":").map(Number);
  const diverse = spec.endsWith(":diverse");
  return { docs: docs ?? 5, terms: terms ?? 10, weight: weight ?? 0.2, maxToolShare: Number(arg("prf-max-share") ?? 0.1), diverse };
});
interface ApiSpec extends Omit<ApiEvidenceSettings, "scoring"> {
  label: string;
  scoring: ApiScoring | "doc" | "const";
  afterCoverage: boolean;
}
const API_SPECS: ApiSpec[] = (arg("api-evidence")?.split(",") ?? []).map((spec) => {
  const [weight, scoring, ...flags] = spec.split(":");
  const mix = flags.find((f): f is ApiMix => f === "capped" || f === "scaled" || f === "penalty");
  return {
    label: `api ${spec}`,
    weight: Number(weight),
    scoring: (scoring ?? "max") as ApiScoring | "doc" | "const",
    ...(mix === undefined ? {} : { mix }),
    keepFirst: flags.includes("first"),
    afterCoverage: flags.includes("after"),
  };
});
const API_DEPTH = Number(arg("api-depth") ?? 100);
const DROP_COMMON = (arg("drop-common")?.split(",") ?? []).map(Number);
const COORDINATION = (arg("coord")?.split(",") ?? []).map(Number);
const QUERY_STOP_LISTS: string[][] = (arg("query-stop")?.split(",") ?? []).map((list) => list.split("+").map((w) => w.toLowerCase()));

/** A search standing in for plain BM25, and the task text coverage and fusion then see. */
export interface RetrievalVariant {
  label: string;
  search: (text: string, depth: number) => Ranked[];
  text?: (task: string) => string;
  /** Applied to the order coverage chose (`ranked`: the search's ranking before coverage), instead of in the search. */
  afterCoverage?: (covering: Ranked[], ranked: Ranked[], text: string) => Ranked[];
}

export interface VariantContext {
  index: ToolIndex;
  docs: readonly ToolDoc[];
  defs: ReadonlyMap<string, ToolDefinition>;
  boosts: Readonly<Record<string, number>>;
}

/** A search for each variant asked for on the command line (none when none is asked for). */
export function retrievalVariants(ctx: VariantContext): RetrievalVariant[] {
  return [...wordVariants(ctx), ...feedbackVariants(ctx), ...apiVariants(ctx)];
}

/** Variants that change which task words count: `--query-stop`, `--drop-common`, `--coord`. */
function wordVariants(ctx: VariantContext): RetrievalVariant[] {
  const variants: RetrievalVariant[] = [];
  const leaving =
    (out: (word: string) => boolean) =>
    (task: string): string =>
      task.replace(/[\p{L}\p{N}']+/gu, (word) => (out(word.toLowerCase()) ? " " : word));
  for (const list of QUERY_STOP_LISTS) {
    const stop = new Set(list);
    const text = leaving((word) => stop.has(word));
    variants.push({ label: `stop ${list.length} words (${list.slice(0, 3).join(" ")}…)`, search: (t, depth) => ctx.index.search(text(t), depth), text });
  }
  const terms = DROP_COMMON.length > 0 ? new DocumentTerms(ctx.docs, ctx.boosts) : undefined;
  for (const share of DROP_COMMON) {
    const text = leaving((word) => {
      const term = termOf(word);
      return term !== null && (terms?.having(term) ?? 0) > share * ctx.index.size;
    });
    variants.push({ label: `drop common ${share}`, search: (t, depth) => ctx.index.search(text(t), depth), text });
  }
  for (const exponent of COORDINATION)
    variants.push({ label: `coord ${exponent}`, search: (text, depth) => withCoordination(ctx.index, text, depth, exponent) });
  return variants;
}

/** `--prf`: pseudo-relevance feedback (pseudo-feedback.ts). */
function feedbackVariants(ctx: VariantContext): RetrievalVariant[] {
  if (FEEDBACK_SPECS.length === 0) return [];
  const terms = new DocumentTerms(ctx.docs, ctx.boosts);
  const feedback: FeedbackIndex = {
    search: (text, k) => ctx.index.search(text, k),
    termImpacts: (text, names) => ctx.index.termImpacts(text, names),
    documentTerms: (name) => terms.of(name),
    documentFrequency: (term) => terms.having(term),
    size: ctx.index.size,
  };
  return FEEDBACK_SPECS.map((settings) => ({
    label: `prf ${settings.docs}:${settings.terms}:${settings.weight}${settings.diverse ? ":diverse" : ""}`,
    search: (text, depth) => searchWithFeedback(feedback, text, depth, settings),
  }));
}

/** `--api-evidence`: each tool's score mixed with its API's (api-evidence.ts). */
function apiVariants(ctx: VariantContext): RetrievalVariant[] {
  if (API_SPECS.length === 0) return [];
  // APIs as routing knows them (api-siblings.ts): a tool alone, or of an API too big to narrow anything, is its own.
  const siblings = apiSiblings(ctx.defs.values());
  const apiOf = (tool: string): string => (siblings.has(tool) ? (ctx.defs.get(tool)?.serverUrl ?? tool) : tool);
  const sizes = new Map<string, number>();
  for (const def of ctx.defs.values()) sizes.set(apiOf(def.name), (sizes.get(apiOf(def.name)) ?? 0) + 1);
  const apiIndex = API_SPECS.some((s) => s.scoring === "doc") ? apiDocumentIndex(ctx.docs, apiOf) : undefined;
  const evidence = (spec: ApiSpec, ranked: Ranked[], text: string, before: Ranked[] = ranked): Ranked[] => {
    const { scoring } = spec;
    // "const" is a control: every tool gets the same API score (what a mere shift of scores does to coverage).
    if (scoring === "const") return mixApiScores(ranked, () => "all", new Map([["all", 1]]), spec);
    if (scoring === "doc") {
      const scores = (apiIndex?.search(text, 1000) ?? []).map((r) => [r.name, r.score] as const);
      const bestApi = Math.max(0, ...scores.map(([, score]) => score));
      return mixApiScores(ranked, apiOf, new Map(scores.map(([api, score]) => [api, score / bestApi])), spec);
    }
    return withApiEvidence(ranked, apiOf, (api) => sizes.get(api) ?? 1, { ...spec, scoring }, before);
  };
  return API_SPECS.map((spec): RetrievalVariant => {
    const deep = (text: string): Ranked[] => ctx.index.search(text, Math.max(30, API_DEPTH));
    if (spec.afterCoverage)
      return {
        label: spec.label,
        search: (text, depth) => ctx.index.search(text, depth),
        // The APIs are scored from the deeper ranking before coverage; the order coverage chose is re-weighted.
        afterCoverage: (covering, _ranked, text) => [...evidence(spec, covering, text, deep(text)).slice(0, covering.length)],
      };
    return { label: spec.label, search: (text, depth) => evidence(spec, deep(text), text).slice(0, depth) };
  });
}

/** The index's best 100 for `text` scored again as Σ impacts × (matched terms)^exponent. */
function withCoordination(index: ToolIndex, text: string, depth: number, exponent: number): Ranked[] {
  const ranked = index.search(text, 100);
  const impacts = index.termImpacts(
    text,
    ranked.map((r) => r.name),
  );
  // A repeated word's impact is per occurrence: count the occurrences of each word the index knows, in the order the index's slots follow.
  const known = new Map<string, number>();
  for (const word of queryWords(text)) {
    const term = termOf(word);
    if (term === null || ranked.length === 0) continue;
    if (!known.has(term) && (index.termImpacts(word, [ranked[0]?.name ?? ""])[0]?.length ?? 0) === 0) continue;
    known.set(term, (known.get(term) ?? 0) + 1);
  }
  const times = [...known.values()];
  const rescored = ranked.map((r, i) => {
    const row = impacts[i] ?? new Float64Array();
    let sum = 0;
    let matched = 0;
    row.forEach((v, slot) => {
      if (v <= 0) return;
      sum += v * (times[slot] ?? 1);
      matched += 1;
    });
    return { name: r.name, score: sum * matched ** exponent };
  });
  return sortRanked(rescored).slice(0, depth);
}

/** One document per API: its tools' fields written one after another. */
function apiDocumentIndex(docs: readonly ToolDoc[], apiOf: (tool: string) => string): ToolIndex {
  const byApi = new Map<string, ToolDoc>();
  for (const doc of docs) {
    const api = apiOf(doc.name);
    const known = byApi.get(api);
    if (known === undefined) byApi.set(api, { ...doc, name: api });
    else for (const field of TOOL_DOC_FIELDS) if (field !== "name") known[field] = `${known[field]}\n${doc[field]}`;
  }
  return ToolIndex.build(byApi.values());
}
