import { LRUCache } from "lru-cache";
import type { TaskVector } from "./routing-calibration";

/** Vectors of the most recently routed tasks a tenant object keeps: twice the calibration's sample, so each sampled task's is likely there. */
export const ROUTED_TASK_VECTORS = 128;

/**
 * The vectors the tenant's embeddings model made of the tasks routed lately, by task text. The
 * calibration replays remembered tasks with and without embeddings (routing-calibration.ts), and
 * a task's vector comes only with its route request (the Worker embeds it); kept in memory only,
 * so after an eviction embeddings keep the weight last chosen until new routes bring vectors.
 */
export class RoutedTaskVectors {
  readonly #vectors = new LRUCache<string, TaskVector>({ max: ROUTED_TASK_VECTORS });

  remember(task: string, vector: TaskVector): void {
    this.#vectors.set(task, vector);
  }

  of(task: string): TaskVector | undefined {
    return this.#vectors.get(task);
  }
}
