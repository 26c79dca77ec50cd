import { shapeTerms, TERMS_PER_REQUEST } from "./learned-attribution";

/**
 * Example requests as evidence for a tool's learned field (retrieval/learned-field.ts): the
 * queries of the Play2Prompt demonstrations applied to the tool, or the requests the tenant's
 * model wrote for it at import. They are a source of their own kind, one per tool
 * (`exampleSource`), so writing them again replaces them, and a deleted or changed tool loses
 * them without touching what real use taught it.
 */

/**
 * Weight of an example request's words: half of one observed conversation (learned-attribution.ts,
 * `EVIDENCE_WEIGHT.observed` = 1). A model-written request is a guess at how users ask, not a
 * choice anyone made; below observed use, one real conversation's words outrank it in the tool's
 * bounded field (its strongest 64 terms), so as traffic arrives, use takes the budget over.
 */
export const EXAMPLE_WEIGHT = 0.5;

/** A tool's examples teach it at most this many words together (one request at most `TERMS_PER_REQUEST`). */
export const TERMS_PER_EXAMPLES = 40;

/** Sources of example requests begin with this; a posted trajectory may not (graph.ts refuses it). */
export const EXAMPLE_SOURCE_PREFIX = "example:";

/** The one source under which a tool's example requests are kept. */
export const exampleSource = (tool: string): string => `${EXAMPLE_SOURCE_PREFIX}${tool}`;

/** Whether a learned-words source holds example requests (not observed use or a trajectory). */
export const isExampleSource = (source: string): boolean => source.startsWith(EXAMPLE_SOURCE_PREFIX);

/** The words a tool learns from its example requests, each at `EXAMPLE_WEIGHT`: argument values left out, as for real requests. */
export function exampleWords(requests: readonly string[]): Map<string, number> {
  const words = new Map<string, number>();
  for (const request of requests) {
    for (const term of shapeTerms(request).slice(0, TERMS_PER_REQUEST)) {
      if (words.size >= TERMS_PER_EXAMPLES) return words;
      words.set(term, EXAMPLE_WEIGHT);
    }
  }
  return words;
}
