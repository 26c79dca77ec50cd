import { hybridTwoWays, type Ranked, searchTwoWays, type SiblingsOf } from "../toolnet/retrieval";
import { callableAsAsked } from "../toolnet/task-fit";
import type { Loaded, TaskRelevance } from "./loaded-routing";

/** How deep the task-relevance ranking goes before fusion. */
export const RELEVANCE_DEPTH = 30;

/** What a task's relevance reads besides the loaded state: tool vectors by model, the APIs (read only if a first step asks), and a counter of searches. */
export interface RelevanceSources {
  vectorsOf: (model: string) => ReadonlyMap<string, number[]> | undefined;
  apiSiblingsOf: () => SiblingsOf | undefined;
  searched: () => void;
  /** The task's learned-field ranking and its weight (absent: no learned field). */
  learned?: { ranking: () => Ranked[]; weight: number } | undefined;
}

/**
 * Task relevance: BM25, fused with embeddings when the task was embedded. `firstStep` weighs API
 * evidence (api-evidence.ts), `ranked` (a later step's) does not. Each ranking is made when a
 * step first reads it: a first step's search reaches as deep as API evidence scores
 * (API_EVIDENCE_DEPTH) and gives a later step's ranking too; a later step of a task no first step
 * ranked searches only `depth` deep, without the APIs (which are then never read).
 */
export function taskRelevance(
  state: Loaded,
  task: string,
  depth: number,
  query: { model: string; vector: number[]; weight?: number } | undefined,
  sources: RelevanceSources,
): TaskRelevance {
  const index = state.index;
  const vectors = query === undefined ? undefined : sources.vectorsOf(query.model);
  let apis: SiblingsOf | undefined | null = null;
  const siblingsOf: SiblingsOf = (tool) => {
    if (apis === null) apis = sources.apiSiblingsOf();
    return apis?.(tool) ?? [];
  };
  const embedded = vectors !== undefined && vectors.size > 0 && query !== undefined;
  const searched = (): { plain: Ranked[]; withApis: Ranked[] } => {
    sources.searched();
    return embedded
      ? hybridTwoWays(index, task, query.vector, vectors, {
          k: depth,
          // The tenant's calibrated weight of the embeddings ranking against BM25's 1 (routing-calibration.ts).
          ...(query.weight === undefined ? {} : { weights: [1, query.weight] as const }),
          canLead: callableAsAsked(task, (tool) => state.saidNumbers.unfitAmong([tool])(tool)),
          siblingsOf,
          ...(sources.learned === undefined ? {} : { learned: sources.learned }),
        })
      : searchTwoWays(index, task, depth, { siblingsOf, ...(sources.learned === undefined ? {} : { learned: sources.learned }) });
  };
  let both: { plain: Ranked[]; withApis: Ranked[] } | undefined;
  let laterOnly: Ranked[] | undefined;
  return {
    get ranked(): Ranked[] {
      if (laterOnly !== undefined) return laterOnly;
      if (both !== undefined || embedded) {
        both ??= searched();
        return both.plain;
      }
      sources.searched();
      laterOnly = searchTwoWays(index, task, depth).plain;
      return laterOnly;
    },
    get firstStep(): Ranked[] {
      both ??= searched();
      return both.withApis;
    },
    embedded,
  };
}
