import type { SignalWeights } from "../toolnet/signal-calibration";
import { hybridTwoWays, searchTwoWays } from "../toolnet/retrieval";
import { callableAsAsked } from "../toolnet/task-fit";
import type { ToolVectors } from "../storage/tool-vectors";
import type { Loaded, LoadedRouting } from "./loaded-routing";
import { RoutingCalibration, type CalibrationReport, type TaskVector } from "./routing-calibration";
import { RoutedTaskVectors } from "./routed-task-vectors";
import { RELEVANCE_DEPTH } from "./task-relevance";
import type { TenantWords } from "./tenant-words";

/**
 * The tenant's signal calibration (routing-calibration.ts) as the routing store wires it in: the
 * rankings its replay reads (a sampled task's first step by its words, or fused with its
 * embeddings; its learned field without its own words; a later step by its words), the vectors of recently routed tasks it replays
 * embeddings with, and the alarm's slice of a due recalibration.
 */
export class TenantCalibration {
  readonly #calibration: RoutingCalibration;
  readonly #states: LoadedRouting;
  /** Tool embeddings by model, for the replay of embeddings. */
  readonly #vectors: ToolVectors;
  /** Vectors of recently routed tasks, for the calibration's replay of embeddings. */
  readonly #taskVectors = new RoutedTaskVectors();

  /** `noteDue` runs when a recalibration becomes due: the tenant object arms its alarm for it. `words`: the learned field, replayed without each task's own words. */
  constructor(sql: SqlStorage, states: LoadedRouting, vectors: ToolVectors, words: TenantWords, noteDue: () => void) {
    this.#states = states;
    this.#vectors = vectors;
    // A sampled task's rankings, searched apart from the memo of rankings (which holds chats' tasks).
    this.#calibration = new RoutingCalibration(
      sql,
      {
        firstRanking: (state, task, embedded) => this.#replayedFirstRanking(state, task, embedded),
        laterRanking: (state, task, depth) => searchTwoWays(state.index, task, depth).plain,
        taskVector: (task) => this.#taskVectors.of(task),
        learned: (state, task, id) => words.replayed(state, task, id),
        startsSetting: () => words.startsSetting(),
        unmatched: (state, id) => words.unmatchedChoices(state, id),
      },
      noteDue,
      { current: () => this.#states.current },
    );
  }

  /** A sampled task's first-step relevance as routing ranks it: by the words, or fused with its embeddings at `weight`. */
  #replayedFirstRanking(state: Loaded, task: string, embedded: { vector: { model: string; vector: number[] }; weight: number } | undefined) {
    const apiSiblings = this.#states.apiSiblingsOf(state);
    const siblingsOf = apiSiblings === undefined ? {} : { siblingsOf: apiSiblings };
    const vectors = embedded === undefined ? undefined : this.#vectors.of(embedded.vector.model);
    if (embedded === undefined || vectors === undefined || vectors.size === 0) return searchTwoWays(state.index, task, RELEVANCE_DEPTH, siblingsOf).withApis;
    return hybridTwoWays(state.index, task, embedded.vector.vector, vectors, {
      k: RELEVANCE_DEPTH,
      weights: [1, embedded.weight],
      canLead: callableAsAsked(task, (tool) => state.saidNumbers.unfitAmong([tool])(tool)),
      ...siblingsOf,
    }).withApis;
  }

  /** The weights routing uses now (never a replay); finding them stale notes a recalibration as due. */
  weights(state: Loaded): SignalWeights {
    return this.#calibration.weights(state);
  }

  /** A routed task's vector, kept for the replay of embeddings. */
  rememberTaskVector(task: string, vector: TaskVector): void {
    this.#taskVectors.remember(task, vector);
  }

  /** The tenant's signal weights, what its replay judged, and whether a recalibration is due (the calibration API). */
  report(): CalibrationReport {
    // Asking is one way to find the weights stale (a route is the other): a recalibration is then noted as due.
    this.#calibration.weights(this.#states.load());
    return this.#calibration.report();
  }

  /** When a recalibration is due (ms since the epoch), or null. */
  dueAt(): number | null {
    return this.#calibration.dueAt();
  }

  /** One slice of a due recalibration (the alarm's, the object handed back between its pieces); true when more slices are needed. */
  async sliceIfDue(now: number): Promise<boolean> {
    const due = this.#calibration.dueAt();
    if (due === null || due > now) return false;
    try {
      return await this.#calibration.slice(this.#states.load());
    } catch (error) {
      console.warn(`routing calibration failed, the last weights kept: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }
}
