import { fuseNextStep, type LearnedStep } from "../toolnet/signal-fusion";
import {
  CALIBRATION_SAMPLE,
  calibrate,
  historyLeads,
  transitionsHelp,
  type CalibrationSample,
  type TransitionsCalibration,
} from "../toolnet/history-calibration";
import type { Ranked } from "../toolnet/retrieval";
import { nextStepInput, WITHOUT_TRANSITIONS } from "./routing-answers";
import { allRows } from "../storage/sql";
import type { Loaded } from "./loaded-routing";

/**
 * The calibration is made again once the task memory has changed this many times (tasks remembered
 * or forgotten), or a 64th of its size if more: its cost grows with the memory (a vote scans the
 * tasks sharing words; each replay 22–23 ms at 704 remembered tasks, 146–151 ms at 11,000, in Node
 * at 10,000 tools), so a large memory pays it about once per 170 tasks learned.
 */
export const RECALIBRATE_AFTER = 16;

/** How deep a replayed later step's task ranking goes (tenant-routing.ts RELEVANCE_DEPTH). */
const LATER_RELEVANCE_DEPTH = 30;

/** A replayed later step counts as a hit when its next tool is among the first 5 (the figure the dev sets judge by). */
const JUDGED_AT = 5;

function recalibrateAfter(memorySize: number): number {
  // A memory no bigger than the sample is judged again at every change: each new task is a large part of the evidence, and cheap to replay.
  if (memorySize <= CALIBRATION_SAMPLE) return 1;
  return Math.max(RECALIBRATE_AFTER, Math.floor(memorySize / 64));
}

/** What a calibration was made from: the loaded state, its memory's version and its index's. */
interface Made<T> {
  readonly state: Loaded;
  readonly memory: number;
  readonly index: number;
  readonly value: T;
}

/** The words' rankings a replay needs: the first step's first choice, and a later step's ranking. */
export interface ReplayRankings {
  wordsFirst: (state: Loaded, task: string) => string | undefined;
  laterRanking: (state: Loaded, task: string, depth: number) => Ranked[];
}

/**
 * A tenant's calibrations (history-calibration.ts), from its CALIBRATION_SAMPLE most recently
 * remembered tasks (the trajectories that carry a task text): whether similar earlier tasks may
 * overrule the words at first steps, and whether learned transitions take part in later steps.
 * Each is kept until the tools change or the memory has changed enough (recalibrateAfter), so its
 * cost (a search, votes and fusions per sampled task) is paid once per that many remembered
 * tasks, not per route.
 */
export class RoutingCalibration {
  readonly #sql: SqlStorage;
  readonly #rankings: ReplayRankings;
  #history: Made<boolean> | undefined;
  #transitions: Made<boolean> | undefined;

  constructor(sql: SqlStorage, rankings: ReplayRankings) {
    this.#sql = sql;
    this.#rankings = rankings;
  }

  /** Whether similar earlier tasks may overrule the best match at this tenant's first steps. */
  historyLeads(state: Loaded): boolean {
    this.#history = this.#fresh(this.#history, state) ?? this.#made(state, historyLeads(calibrate(this.#historySamples(state))));
    return this.#history.value;
  }

  /** Whether learned transitions take part in this tenant's later steps. */
  transitionsHelp(state: Loaded): boolean {
    this.#transitions = this.#fresh(this.#transitions, state) ?? this.#made(state, transitionsHelp(this.#replayLaterSteps(state)));
    return this.#transitions.value;
  }

  #fresh<T>(made: Made<T> | undefined, state: Loaded): Made<T> | undefined {
    const memory = state.memory;
    const fresh =
      made !== undefined && made.state === state && made.index === state.index.version && memory.version - made.memory < recalibrateAfter(memory.size);
    return fresh ? made : undefined;
  }

  #made<T>(state: Loaded, value: T): Made<T> {
    return { state, memory: state.memory.version, index: state.index.version, value };
  }

  #recentTasks(): { id: string; task: string; tools: string[] }[] {
    return allRows<{ id: string; task: string; tools: string }>(
      this.#sql,
      "SELECT id, task, tools FROM graph_trajectories WHERE task IS NOT NULL ORDER BY rowid DESC LIMIT ?",
      CALIBRATION_SAMPLE,
    ).map((row) => ({ id: row.id, task: row.task, tools: JSON.parse(row.tools) as string[] }));
  }

  #historySamples(state: Loaded): CalibrationSample[] {
    return this.#recentTasks().map((row) => ({
      started: row.tools[0] ?? "",
      voted: state.memory.votes(row.task, { tools: "first", excluding: row.id })[0]?.name,
      words: this.#rankings.wordsFirst(state, row.task),
    }));
  }

  /**
   * Each sampled task's later steps replayed as routing ranks them, with and without learned
   * transitions, the task's own transitions taken out of what was learned (its own steps must not
   * teach it) and its own text out of the votes.
   */
  #replayLaterSteps(state: Loaded): TransitionsCalibration {
    const judged = { steps: 0, with: 0, without: 0 };
    for (const row of this.#recentTasks()) {
      if (row.tools.length < 2) continue;
      const relevance = this.#rankings.laterRanking(state, row.task, LATER_RELEVANCE_DEPTH);
      for (let i = 1; i < row.tools.length; i += 1) {
        const previous = row.tools[i - 1] ?? "";
        const next = row.tools[i] ?? "";
        if (previous === next || !state.graph.tools.has(previous) || !state.graph.tools.has(next)) continue;
        const input = nextStepInput(state, row.task, relevance, previous, JUDGED_AT, { history: true, excluding: row.id });
        const learned = withoutOwnSteps(input.learned, row.tools, previous);
        judged.steps += 1;
        if (topHolds(fuseNextStep({ ...input, learned }), next)) judged.with += 1;
        if (topHolds(fuseNextStep({ ...input, learned, signals: WITHOUT_TRANSITIONS }), next)) judged.without += 1;
      }
    }
    return judged;
  }
}

function topHolds(fused: readonly { tool: string }[], tool: string): boolean {
  return fused.slice(0, JUDGED_AT).some((c) => c.tool === tool);
}

/** `learned` successors of `previous` less what `tools` (one trajectory) contributed to their counts. */
function withoutOwnSteps(learned: readonly LearnedStep[], tools: readonly string[], previous: string): LearnedStep[] {
  const own = new Map<string, number>();
  for (let i = 1; i < tools.length; i += 1) if (tools[i - 1] === previous) own.set(tools[i] ?? "", (own.get(tools[i] ?? "") ?? 0) + 1);
  return learned.flatMap((step) => {
    const observed = step.observed - (own.get(step.tool) ?? 0);
    return observed > 0 ? [{ ...step, observed }] : [];
  });
}
