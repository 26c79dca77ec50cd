import { fuseFirstStep, fuseNextStep, type FirstStepInput, type LearnedStep } from "../toolnet/signal-fusion";
import { graphStartsWithout } from "../toolnet/first-step-prior";
import { CALIBRATION_SAMPLE } from "../toolnet/history-calibration";
import {
  calibratedEntry,
  chooseWeights,
  DEFAULT_SIGNAL_WEIGHTS,
  emptyReplay,
  judge,
  type CalibratedSignal,
  type SignalReplay,
  type SignalWeights,
} from "../toolnet/signal-calibration";
import type { Ranked } from "../toolnet/retrieval";
import { withLearnedField } from "../toolnet/retrieval/learned-field";
import { nextStepInput, WITHOUT_TRANSITIONS } from "./routing-answers";
import { GraphRows } from "../storage/graph-rows";
import { StoredBlobs } from "../storage/stored-blobs";
import type { Loaded } from "./loaded-routing";
import { macrotaskTurn } from "../common/work-slice";

/**
 * Above CALIBRATION_SAMPLE remembered tasks, the calibration is made again once the task memory
 * has changed this many times (tasks remembered or forgotten), or a 64th of its size if more: its
 * cost grows with the memory (a vote scans the tasks sharing words; each replay 22–23 ms at 704
 * remembered tasks, 146–151 ms at 11,000, in Node at 10,000 tools), so a large memory pays it
 * about once per 170 tasks learned.
 */
export const RECALIBRATE_AFTER = 16;

/**
 * A memory of at most CALIBRATION_SAMPLE tasks is judged again once it has changed by an eighth
 * of its size, and never after fewer changes than this: each new task is a large part of the
 * evidence, but replaying all of them after every task made a tenant's first conversations pay a
 * whole replay each (64 replays over its first 64 tasks; now 13).
 */
export const RECALIBRATE_SMALL_AFTER = 4;

/**
 * Calibrations are made at most once per this interval, however fast tasks arrive (the next one
 * is due this long after the last was made): a burst of conversations costs at most one replay
 * a second (≤ 64 sampled tasks, tens of ms of CPU).
 */
export const RECALIBRATE_INTERVAL_MS = 1_000;

/**
 * Rankings made per slice of the tenant object's alarm (a slice ends after the piece that
 * reaches it, and the next alarm continues where it stopped, within a task if need be). Workers'
 * clocks stand still while code runs, so the slice counts work, not time: each ranking a replay
 * makes (the task's words, its votes, its learned field, each embeddings weight, each usual-starts and unmatched-choices
 * weight, each later step) is one unit, so a task of many steps or signals takes more of the
 * slice than a one-step task. 24 units is about four RestBench TMDB tasks; the budget is about 50
 * ms of CPU a slice on a quiet machine (measured on TMDB at load average 10: 3 ms p50, 21 ms at
 * most of the isolate's CPU a slice; docs/benchmarks.md, "Calibration slices").
 */
export const CALIBRATION_SLICE_WORK = 24;

/**
 * Rankings per piece of a task's later steps (its task ranking and each step count one). A Durable
 * Object runs one thing at a time, so the slice hands the object back (a macrotask) after every
 * piece: after each task's first step (at most 10 units) and after every this many units of its
 * later steps. A request arriving while the calibration runs waits for one piece, never for the
 * whole slice.
 */
const LATER_STEPS_PER_PIECE = 8;

/** How deep a replayed later step's task ranking goes (tenant-routing.ts RELEVANCE_DEPTH). */
const LATER_RELEVANCE_DEPTH = 30;

/** A replayed step counts as a hit when its tool is among the first 5 (the figure the dev sets judge by). */
const JUDGED_AT = 5;

const CALIBRATION_BLOB = "routing-calibration";
const CALIBRATION_FORMAT = "signal-weights/1";

/** Changes of the task memory after which its calibration is due again. */
export function recalibrateAfter(memorySize: number): number {
  if (memorySize <= CALIBRATION_SAMPLE) return Math.max(RECALIBRATE_SMALL_AFTER, Math.ceil(memorySize / 8));
  return Math.max(RECALIBRATE_AFTER, Math.floor(memorySize / 64));
}

/** A task's vector as the tenant's embeddings model made it when the task was routed. */
export interface TaskVector {
  model: string;
  vector: number[];
}

/** The rankings a replay needs: a first step's relevance (embedded at `weight`, or by the words alone), and a later step's ranking. */
export interface ReplayRankings {
  firstRanking: (state: Loaded, task: string, embedded: { vector: TaskVector; weight: number } | undefined) => Ranked[];
  laterRanking: (state: Loaded, task: string, depth: number) => Ranked[];
  /** The vector of a task routed with embeddings, when the object still remembers it. */
  taskVector: (task: string) => TaskVector | undefined;
  /**
   * The task's learned-field ranking with what the trajectory `id` taught left out, and the
   * tenant's setting of the field's weight; undefined when the field is off or nothing is learned.
   */
  learned: (state: Loaded, task: string, id: string) => { ranking: Ranked[]; weight: number } | undefined;
  /** The tenant's `learning.startsWeight` (0: the usual starts are off, and not judged). */
  startsSetting: () => number;
  /**
   * The tools chosen where the words found nothing (first-step-prior.ts unmatchedChoices) with
   * what the trajectory `id` taught left out; none when the learned field is off.
   */
  unmatched: (state: Loaded, id: string) => string[];
}

type Replays = Record<CalibratedSignal, SignalReplay>;
type Sampled = { id: string; task: string; tools: string[] };

/** What a calibration was made from (its loaded state, memory and index versions), and what it chose. */
interface Made {
  readonly state: Loaded | undefined;
  readonly memory: number;
  readonly index: number;
  readonly weights: SignalWeights;
  readonly replays: Replays;
  readonly madeAt: number;
}

/** A replay in progress, a slice at a time: its pieces (each yields the rankings it made) continue where the last slice stopped. */
interface Run {
  readonly state: Loaded;
  readonly memory: number;
  readonly index: number;
  readonly pieces: Generator<number, void, void>;
  readonly replays: Replays;
}

/** How a calibration reaches the object it runs in. */
export interface CalibrationHost {
  /** The object's routing state now (undefined when none is loaded): a slice stops when it is no longer the one replayed. */
  current?: () => Loaded | undefined;
  /** Hands the object back between pieces (a macrotask; tests count them). */
  handBack?: () => Promise<void>;
}

/** What the calibration API shows an operator. */
export interface CalibrationReport {
  weights: SignalWeights;
  /** Per signal: tasks (or later steps) judged, and hits at each weight of its grid. */
  replays: Record<CalibratedSignal, { judged: number; grid: number[]; hits: number[] }>;
  /** When the weights were chosen (ISO time), null for the defaults of a tenant never calibrated. */
  madeAt: string | null;
  /** A recalibration is due or under way; meanwhile routing uses these weights. */
  stale: boolean;
}

const emptyReplays = (): Replays => ({
  history: emptyReplay(calibratedEntry("history")),
  transitions: emptyReplay(calibratedEntry("transitions")),
  embeddings: emptyReplay(calibratedEntry("embeddings")),
  learned: emptyReplay(calibratedEntry("learned")),
  starts: emptyReplay(calibratedEntry("starts")),
  unmatched: emptyReplay(calibratedEntry("unmatched")),
});

/**
 * A tenant's signal weights (signal-calibration.ts), from its CALIBRATION_SAMPLE most recently
 * remembered tasks (the trajectories that carry a task text), replayed each with its own
 * contribution left out. A route never replays: it reads the last weights made (kept in SQLite, so
 * an eviction keeps them), and when it finds them stale it notes a recalibration as due; the tenant
 * object's alarm then replays tasks, CALIBRATION_SLICE_WORK rankings per slice, until the weights are made.
 */
export class RoutingCalibration {
  readonly #rows: GraphRows;
  readonly #blobs: StoredBlobs;
  readonly #rankings: ReplayRankings;
  readonly #noteDue: () => void;
  #made: Made | undefined;
  readonly #currentState: () => Loaded | undefined;
  readonly #handBack: () => Promise<void>;
  #run: Run | undefined;
  #dueSince: number | null = null;
  /** A slice is running (it awaits between pieces): another alarm meanwhile leaves the work to it. */
  #slicing = false;

  constructor(sql: SqlStorage, rankings: ReplayRankings, noteDue: () => void, host: CalibrationHost = {}) {
    this.#rows = new GraphRows(sql);
    this.#blobs = new StoredBlobs(sql);
    this.#rankings = rankings;
    this.#noteDue = noteDue;
    this.#currentState = host.current ?? (() => undefined);
    this.#handBack = host.handBack ?? macrotaskTurn;
  }

  /** The weights routing uses now (the request path: never a replay). A stale calibration is used as it is, and its remaking noted as due. */
  weights(state: Loaded): SignalWeights {
    this.#made ??= this.#stored();
    if (!this.#fresh(state)) this.#due();
    return this.#made?.weights ?? DEFAULT_SIGNAL_WEIGHTS;
  }

  /** When a recalibration is due (ms since the epoch), or null. */
  dueAt(): number | null {
    return this.#dueSince;
  }

  /**
   * One slice of the recalibration (the alarm's): replays sampled tasks a piece at a time, the
   * object handed back after each piece, until they have made `work` rankings; once every sample
   * is replayed, the weights are chosen and stored. True when more slices are needed. A slice
   * that finds another running (an alarm delivered while it waits) leaves the work to it.
   */
  async slice(state: Loaded, work = CALIBRATION_SLICE_WORK): Promise<boolean> {
    if (this.#dueSince === null) return false;
    if (this.#slicing) return true;
    this.#slicing = true;
    try {
      return await this.#sliceInPieces(state, work);
    } catch (error) {
      // A failed replay starts again from its first task (its generator is spent).
      this.#run = undefined;
      throw error;
    } finally {
      this.#slicing = false;
    }
  }

  async #sliceInPieces(state: Loaded, work: number): Promise<boolean> {
    if (this.#run === undefined || this.#run.state !== state) this.#run = this.#started(state);
    const run = this.#run;
    for (let spent = 0; spent < work; ) {
      const piece = run.pieces.next();
      if (piece.done === true) {
        this.#finish(run);
        return false;
      }
      spent += piece.value;
      if (spent >= work) break;
      await this.#handBack();
      // The catalog changed meanwhile: the next slice starts the replay again on the new state.
      const now = this.#currentState();
      if (now !== undefined && now !== state) return true;
    }
    return true;
  }

  /** What the calibration API shows: the weights routing uses, what the replay judged, and whether a remaking is due. */
  report(): CalibrationReport {
    this.#made ??= this.#stored();
    const made = this.#made;
    const replays = made?.replays ?? emptyReplays();
    const shown = (signal: CalibratedSignal) => ({ judged: replays[signal].judged, grid: [...calibratedEntry(signal).grid], hits: replays[signal].hits });
    return {
      weights: made?.weights ?? DEFAULT_SIGNAL_WEIGHTS,
      replays: {
        history: shown("history"),
        transitions: shown("transitions"),
        embeddings: shown("embeddings"),
        learned: shown("learned"),
        starts: shown("starts"),
        unmatched: shown("unmatched"),
      },
      madeAt: made === undefined ? null : new Date(made.madeAt).toISOString(),
      stale: this.#dueSince !== null,
    };
  }

  #due(): void {
    if (this.#dueSince !== null) return;
    const last = this.#made?.madeAt;
    this.#dueSince = Math.max(Date.now(), last === undefined ? 0 : last + RECALIBRATE_INTERVAL_MS);
    this.#noteDue();
  }

  #fresh(state: Loaded): boolean {
    const made = this.#made;
    const memory = state.memory;
    return made !== undefined && made.state === state && made.index === state.index.version && memory.version - made.memory < recalibrateAfter(memory.size);
  }

  #started(state: Loaded): Run {
    const replays = emptyReplays();
    return { state, memory: state.memory.version, index: state.index.version, pieces: this.#replayPieces(state, this.#recentTasks(), replays), replays };
  }

  /** Every sampled task replayed, piece by piece: each yields the rankings it made (the slice's unit of work). */
  *#replayPieces(state: Loaded, samples: readonly Sampled[], replays: Replays): Generator<number, void, void> {
    for (const sample of samples) {
      yield this.#replayFirstStep(state, sample, replays);
      yield* this.#replayLaterSteps(state, sample, replays.transitions);
    }
  }

  #finish(run: Run): void {
    this.#run = undefined;
    // A change while the run went on (another Loaded state) restarts it at the next slice; here the run is whole.
    const previous = this.#made?.replays.embeddings;
    const replays = { ...run.replays };
    // With no embedded task remembered (none routed with a vector since the object started), the last judgement of embeddings stands.
    if (replays.embeddings.judged === 0 && previous !== undefined) replays.embeddings = previous;
    const weights = chooseWeights(replays);
    this.#made = { state: run.state, memory: run.memory, index: run.index, weights, replays, madeAt: Date.now() };
    this.#dueSince = null;
    this.#blobs.write(CALIBRATION_BLOB, CALIBRATION_FORMAT, new TextEncoder().encode(JSON.stringify({ weights, replays })), String(this.#made.madeAt));
  }

  /** The last weights stored (an earlier lifetime of the object made them); they must be made again for this state. */
  #stored(): Made | undefined {
    const blob = this.#blobs.read(CALIBRATION_BLOB, CALIBRATION_FORMAT);
    if (blob === undefined) return undefined;
    const { weights, replays } = JSON.parse(new TextDecoder().decode(blob.bytes)) as { weights: SignalWeights; replays: Partial<Replays> };
    // Weights stored before a signal joined the list read as its default.
    return {
      state: undefined,
      memory: -1,
      index: -1,
      weights: { ...DEFAULT_SIGNAL_WEIGHTS, ...weights },
      replays: { ...emptyReplays(), ...replays },
      madeAt: Number(blob.stamp),
    };
  }

  #recentTasks(): Sampled[] {
    return this.#rows.recentTasks(CALIBRATION_SAMPLE);
  }

  /** One sampled task's first step replayed for every signal; returns the rankings it made (the slice's unit of work). */
  #replayFirstStep(state: Loaded, sample: Sampled, replays: Replays): number {
    const started = sample.tools[0] ?? "";
    const words = this.#rankings.firstRanking(state, sample.task, undefined);
    const judged = () =>
      replays.embeddings.judged * 3 + replays.learned.judged + replays.history.judged + replays.starts.judged * 4 + replays.unmatched.judged * 2;
    const before = judged();
    this.#replayHistory(state, sample, started, words[0]?.name, replays.history);
    this.#replayEmbeddings(state, sample.task, started, words, replays.embeddings);
    const learned = this.#rankings.learned(state, sample.task, sample.id);
    this.#replayLearned(started, words, learned, replays.learned);
    const relevance = learned === undefined ? words : withLearnedField(words, learned.ranking, learned.weight * this.#current().learned);
    // Votes are read only when a prior is judged (a tenant with neither pays nothing more).
    let input: FirstStepInput | undefined;
    const fused = () => (input ??= this.#fusedFirstStep(state, sample, relevance));
    this.#replayStarts(state, sample, started, fused, replays.starts);
    this.#replayUnmatched(state, sample, started, fused, replays.unmatched);
    // The words' ranking, then one per judgement (an embedded task's three weights each rank it again, the starts' four and the unmatched choices' two fuse it again).
    return 1 + judged() - before;
  }

  /** A replayed task's first step as routing fuses it (its relevance, similar tasks' votes without its own text), before either prior joins. */
  #fusedFirstStep(state: Loaded, sample: Sampled, relevance: readonly Ranked[]): FirstStepInput {
    const history = state.memory.votes(sample.task, { tools: "first", excluding: sample.id });
    const usedVotes = history.length === 0 ? [] : state.memory.votes(sample.task, { tools: "all", excluding: sample.id });
    return { relevance, history, usedVotes, historyLeads: history.length === 0 || this.#current().history > 0 };
  }

  /**
   * The task's first tool in the first 5 of its first step fused as routing fuses it, the usual
   * starts at their current weight, with the tools chosen where the words found nothing (what the
   * task's own conversation taught left out) at each weight of the grid; judged while some tool
   * was so chosen.
   */
  #replayUnmatched(state: Loaded, sample: Sampled, started: string, fused: () => FirstStepInput, replay: SignalReplay): void {
    const tools = this.#rankings.unmatched(state, sample.id);
    if (tools.length === 0) return;
    const input = fused();
    const startsWeight = this.#current().starts * this.#rankings.startsSetting();
    const starts = { tools: startsWeight > 0 ? graphStartsWithout(state.graph, sample.id) : [], weight: startsWeight };
    judge(calibratedEntry("unmatched"), replay, (weight) => topHolds(fuseFirstStep({ ...input, starts, unmatched: { tools, weight } }), started));
  }

  /** The task's first tool in the first 5 of its relevance with the learned field (its own words left out) at each weight of the grid, times the tenant's setting. */
  #replayLearned(started: string, words: readonly Ranked[], learned: { ranking: Ranked[]; weight: number } | undefined, replay: SignalReplay): void {
    if (learned === undefined) return;
    judge(calibratedEntry("learned"), replay, (weight) =>
      topHolds(weight > 0 ? withLearnedField(words, learned.ranking, learned.weight * weight) : words, started),
    );
  }

  /** The weights routing uses now (the last made, else the defaults): what the other signals count while one is replayed. */
  #current(): SignalWeights {
    return this.#made?.weights ?? DEFAULT_SIGNAL_WEIGHTS;
  }

  /**
   * The task's first tool in the first 5 of its first step fused as routing fuses it (its
   * relevance, similar tasks' votes without its own text) with the usual starts, its own start
   * left out, at each share of the tenant's `learning.startsWeight` in the grid; judged while
   * the setting is on and the tenant has usual starts.
   */
  #replayStarts(state: Loaded, sample: Sampled, started: string, fused: () => FirstStepInput, replay: SignalReplay): void {
    const setting = this.#rankings.startsSetting();
    const tools = setting > 0 ? graphStartsWithout(state.graph, sample.id) : [];
    if (tools.length === 0) return;
    const input = fused();
    judge(calibratedEntry("starts"), replay, (weight) => topHolds(fuseFirstStep({ ...input, starts: { tools, weight } }), started));
  }

  /** History's first vote (the task's own text left out) against the words' first choice, where some other task voted. */
  #replayHistory(state: Loaded, sample: Sampled, started: string, wordsFirst: string | undefined, replay: SignalReplay): void {
    const voted = state.memory.votes(sample.task, { tools: "first", excluding: sample.id })[0]?.name;
    if (voted === undefined) return;
    judge(calibratedEntry("history"), replay, (weight) => (weight > 0 ? voted : wordsFirst) === started);
  }

  /** The task's first tool in the first 5 of its relevance at each embeddings weight (0: the words alone), for a task routed with a vector. */
  #replayEmbeddings(state: Loaded, task: string, started: string, words: readonly Ranked[], replay: SignalReplay): void {
    const vector = this.#rankings.taskVector(task);
    if (vector === undefined) return;
    judge(calibratedEntry("embeddings"), replay, (weight) => {
      const ranking = weight > 0 ? this.#rankings.firstRanking(state, task, { vector, weight }) : words;
      return topHolds(ranking, started);
    });
  }

  /**
   * Each sampled task's later steps replayed as routing ranks them, with and without learned
   * transitions, the task's own transitions taken out of what was learned (its own steps must not
   * teach it) and its own text out of the votes. Yields the rankings made (its task ranking, one
   * per step) every LATER_STEPS_PER_PIECE steps, so a task of many steps is replayed in pieces.
   */
  *#replayLaterSteps(state: Loaded, sample: Sampled, replay: SignalReplay): Generator<number, void, void> {
    const tools = sample.tools;
    if (tools.length < 2) return;
    const relevance = this.#rankings.laterRanking(state, sample.task, LATER_RELEVANCE_DEPTH);
    let made = 1;
    for (let i = 1; i < tools.length; i += 1) {
      const previous = tools[i - 1] ?? "";
      const next = tools[i] ?? "";
      if (previous === next || !state.graph.tools.has(previous) || !state.graph.tools.has(next)) continue;
      const input = nextStepInput(state, sample.task, relevance, previous, JUDGED_AT, { history: true, excluding: sample.id });
      const learned = withoutOwnSteps(input.learned, tools, previous);
      const fused = (weight: number) => fuseNextStep(weight > 0 ? { ...input, learned } : { ...input, learned, signals: WITHOUT_TRANSITIONS });
      judge(calibratedEntry("transitions"), replay, (weight) => topHolds(fused(weight), next));
      made += 1;
      if (made >= LATER_STEPS_PER_PIECE) {
        yield made;
        made = 0;
      }
    }
    if (made > 0) yield made;
  }
}

function topHolds(ranked: readonly ({ tool: string } | { name: string })[], tool: string): boolean {
  return ranked.slice(0, JUDGED_AT).some((c) => ("tool" in c ? c.tool : c.name) === tool);
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
