/**
 * The embeddings weight as routing chooses it per tenant (signal-calibration.ts): for each task,
 * the weight of the grid under which the tenant's other tasks (its group left out; routing replays
 * its 64 most recent) held their first tool in the first 5 of their relevance most often, the
 * lowest among ties, 0 meaning the words alone; then the cold and warm first steps at that weight.
 * Needs `--embeddings=… --embeddings-weight=0.25,0.5,1` (every non-zero weight of the grid).
 */
import { searchTwoWays } from "../../../functions/toolnet/retrieval/term-coverage";
import { calibratedEntry, chosenWeight, emptyReplay, judge, type SignalReplay } from "../../../functions/toolnet/signal-calibration";
import type { Task } from "../routing-datasets";
import { addFirstStep } from "./calibration";
import { type Context, routingSearch } from "./context";
import { denseRelevance, withWeight } from "./embeddings";
import type { Report } from "./measures";
import { DENSE_LEADS, DENSE_WEIGHTS } from "./options";

const ENTRY = calibratedEntry("embeddings");
export const COLD_PER_TENANT = "cold + embeddings: fused, no history (weight per tenant)";
export const WARM_PER_TENANT = "warm + embeddings: fused, history always may lead (weight per tenant)";

/** One measured task: whether its relevance held its first gold tool at each weight of the grid, and its first steps at each. */
export interface EmbeddingsRow {
  group: string;
  firstGold: readonly string[];
  distinctGold: readonly string[];
  held: boolean[];
  cold: string[][];
  warm: string[][];
}

/** Whether every non-zero weight of the grid was measured (with the default lead). */
export const gridMeasured = (): boolean => DENSE_LEADS.length === 1 && ENTRY.grid.every((w) => w === 0 || DENSE_WEIGHTS.includes(w));

/** The task's row, from its first-step rankings (`rankings`, by variant) and its relevance at each weight. */
export function embeddingsRow(
  ctx: Context,
  task: Task,
  gold: Pick<EmbeddingsRow, "firstGold" | "distinctGold">,
  rankings: ReadonlyMap<string, string[]>,
): EmbeddingsRow | undefined {
  if (ctx.dense === undefined || !gridMeasured()) return undefined;
  const lead = DENSE_LEADS[0] ?? 0.15;
  const words = searchTwoWays(ctx.index, task.text, 30, routingSearch(ctx)).withApis;
  const relevanceAt = (weight: number) => (weight === 0 ? words : (denseRelevance(ctx, task.text, 30, weight, lead) ?? words));
  return {
    group: task.group,
    ...gold,
    held: ENTRY.grid.map((weight) =>
      relevanceAt(weight)
        .slice(0, 5)
        .some((r) => gold.firstGold.includes(r.name)),
    ),
    cold: ENTRY.grid.map((w) => rankings.get(w === 0 ? "cold: fused, no history" : withWeight("cold + embeddings: fused, no history", w, lead)) ?? []),
    warm: ENTRY.grid.map(
      (w) =>
        rankings.get(
          w === 0 ? "warm: fused, history always may lead" : withWeight("warm + embeddings: fused: all signals (first tools of history)", w, lead),
        ) ?? [],
    ),
  };
}

/** The per-tenant rows: each task at the weight its tenant's other tasks chose; the chosen weights counted. */
export function addEmbeddingsPerTenant(report: Report, rows: readonly EmbeddingsRow[]): void {
  const tally = (of: readonly EmbeddingsRow[]): SignalReplay => {
    const replay = emptyReplay(ENTRY);
    for (const row of of) judge(ENTRY, replay, (weight) => row.held[ENTRY.grid.indexOf(weight)] === true);
    return replay;
  };
  const total = tally(rows);
  const byGroup = new Map<string, EmbeddingsRow[]>();
  for (const row of rows) byGroup.set(row.group, [...(byGroup.get(row.group) ?? []), row]);
  const ownOf = new Map([...byGroup].map(([group, own]) => [group, tally(own)]));
  const chosen = new Map<number, number>();
  for (const row of rows) {
    const own = ownOf.get(row.group) ?? emptyReplay(ENTRY);
    const others = { judged: total.judged - own.judged, hits: total.hits.map((h, i) => h - (own.hits[i] ?? 0)) };
    const at = ENTRY.grid.indexOf(chosenWeight(ENTRY, others));
    addFirstStep(report, COLD_PER_TENANT, row, row.cold[at] ?? []);
    addFirstStep(report, WARM_PER_TENANT, row, row.warm[at] ?? []);
    chosen.set(ENTRY.grid[at] ?? 0, (chosen.get(ENTRY.grid[at] ?? 0) ?? 0) + 1);
  }
  const weights = [...chosen].map(([weight, tasks]) => `${weight} for ${tasks} tasks`).join(", ");
  const hits = ENTRY.grid.map((w, i) => `${w}: ${total.hits[i]}`).join(", ");
  console.log(`\nEmbeddings weight per tenant: ${weights} (replay over all ${total.judged} tasks, first tool in the first 5 at weight ${hits})`);
}
