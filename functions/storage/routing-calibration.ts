import { CALIBRATION_SAMPLE, calibrate, historyLeads, type HistoryCalibration } from "../toolnet/history-calibration";
import { allRows } from "./sql";
import type { Loaded } from "./loaded-routing";

/**
 * The calibration is made again once the task memory has changed this many times (tasks remembered
 * or forgotten), or a 64th of its size if more: its cost grows with the memory (a vote scans the
 * tasks sharing words; 23 ms at 704 remembered tasks, 146 ms at 11,000, in Node at 10,000 tools),
 * so a large memory pays it about once per 170 tasks learned.
 */
export const RECALIBRATE_AFTER = 16;

function recalibrateAfter(memorySize: number): number {
  // A memory no bigger than the sample is judged again at every change: each new task is a large part of the evidence, and cheap to replay.
  if (memorySize <= CALIBRATION_SAMPLE) return 1;
  return Math.max(RECALIBRATE_AFTER, Math.floor(memorySize / 64));
}

/** What a calibration was made from: the loaded state, its memory's version and its index's. */
interface Made {
  readonly state: Loaded;
  readonly memory: number;
  readonly index: number;
  readonly calibration: HistoryCalibration;
}

/**
 * A tenant's history calibration (history-calibration.ts), from its CALIBRATION_SAMPLE most
 * recently remembered tasks: for each, what the other tasks vote for first and what the words put
 * first, against the tool it started with. Kept until the tools change or the memory has changed
 * enough (recalibrateAfter), so its cost (a search and a vote per sampled task) is paid once per
 * that many remembered tasks, not per route.
 */
export class RoutingCalibration {
  readonly #sql: SqlStorage;
  /** The words' first choice for a task: what a first step's relevance ranks first. */
  readonly #wordsFirst: (state: Loaded, task: string) => string | undefined;
  #made: Made | undefined;
  /** Calibrations made since the object started (tests). */
  made = 0;

  constructor(sql: SqlStorage, wordsFirst: (state: Loaded, task: string) => string | undefined) {
    this.#sql = sql;
    this.#wordsFirst = wordsFirst;
  }

  /** Whether similar earlier tasks may overrule the best match at this tenant's first steps. */
  historyLeads(state: Loaded): boolean {
    return historyLeads(this.calibration(state));
  }

  calibration(state: Loaded): HistoryCalibration {
    const made = this.#made;
    const memory = state.memory;
    if (made !== undefined && made.state === state && made.index === state.index.version && memory.version - made.memory < recalibrateAfter(memory.size)) {
      return made.calibration;
    }
    const rows = allRows<{ id: string; task: string; tools: string }>(
      this.#sql,
      "SELECT id, task, tools FROM graph_trajectories WHERE task IS NOT NULL ORDER BY rowid DESC LIMIT ?",
      CALIBRATION_SAMPLE,
    );
    const calibration = calibrate(
      rows.map((row) => ({
        started: (JSON.parse(row.tools) as string[])[0] ?? "",
        voted: memory.votes(row.task, { tools: "first", excluding: row.id })[0]?.name,
        words: this.#wordsFirst(state, row.task),
      })),
    );
    this.made += 1;
    this.#made = { state, memory: memory.version, index: state.index.version, calibration };
    return calibration;
  }
}
