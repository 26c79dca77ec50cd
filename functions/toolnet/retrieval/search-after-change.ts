import type { Arrays } from "./impact-layout";
import { termImpactsOf } from "./impact-rebuild";
import { queryTermsOf, type QueryTerms, type SearchedIndex, type TermCounts } from "./impact-search";
import { TOOL_DOC_FIELDS } from "./tool-document";

/**
 * A search right after a change (impact-index.ts `#searchFor`): the merged raw arrays with the
 * impacts of the query's own terms alone, computed exactly as a whole recomputation computes them,
 * renumbered by their first use (as a stored part's search reads them, search-part.ts); a repeated
 * term's raw counts read by its own id. A few posting lists, where every impact is all of them.
 */

const FIELDS = TOOL_DOC_FIELDS.length;

/** `raw` (merged; ids below `index.names.length`) searched for the query whose term ids are `ids` (-1: unknown). */
export function searchedWithTermImpacts(
  raw: Arrays,
  index: Pick<SearchedIndex, "tuning" | "count" | "names">,
  ids: readonly number[],
): { index: SearchedIndex; query: QueryTerms } {
  const unique = [...new Set(ids.filter((id) => id >= 0))];
  const local = new Map(unique.map((id, position) => [id, position]));
  const arrays: Arrays = { ...raw, ...termImpactsOf(raw, index.tuning, index.count, index.names.length, unique) };
  const query = queryTermsOf(
    ids.map((id) => local.get(id) ?? -1),
    arrays,
  );
  const countsOf = (term: number): TermCounts => {
    const id = unique[term] ?? 0;
    return { offsets: raw.rawOffsets.subarray(id * FIELDS, id * FIELDS + FIELDS + 1), docs: raw.rawDocs, tfs: raw.rawTfs };
  };
  return { index: { ...index, arrays, countsOf }, query };
}
