import { LRUCache } from "lru-cache";
import { analyze } from "./retrieval/analyze";
import { sortRanked, type Ranked } from "./retrieval/ranked";
import { SlotList } from "./retrieval/slot-list";
import { freshMet, freshSums, keepMet } from "./retrieval/slot-sums";
import { taskShape } from "./task-shape";

/**
 * First-step learning from a tenant's own history: tasks it has run, or sent with trajectories,
 * remember which tools they used. A new task asks its nearest earlier tasks (cosine of
 * IDF-weighted term sets of the tasks' shapes: their words without argument values such as names
 * and dates, see task-shape.ts; same text analysis as tool retrieval), and each votes for its first
 * tool (or for all its tools, for run candidate sets) with its similarity. A task that shares no
 * meaningful words with any earlier one gets no votes, so unrelated tasks rank as before. One
 * memory per tenant: it is built from that tenant's rows only.
 */

export interface RememberedTask {
  readonly id: string;
  readonly task: string;
  /** The tools the task used, in order. */
  readonly tools: readonly string[];
}

export interface NearTask {
  readonly id: string;
  readonly similarity: number;
  readonly tools: readonly string[];
}

export interface VoteOptions {
  /** How many nearest tasks vote. */
  readonly neighbours?: number;
  /** Tasks less similar than this do not vote (cosine in [0, 1]). */
  readonly minSimilarity?: number;
  /**
   * "first": each task votes for its first tool; "all": for every tool it used (earlier ones
   * more); `{ after }`: for the tool it used right after `after` (tasks that never used `after`
   * do not vote), the step a similar task took from where the caller is now.
   */
  readonly tools?: "first" | "all" | { readonly after: string };
  /** A remembered task that does not vote (its own id, to ask what the others would have said). */
  readonly excluding?: string;
}

/** A tool with the votes it got and from how many earlier tasks. */
export interface Vote extends Ranked {
  readonly tasks: number;
}

export const DEFAULT_NEIGHBOURS = 8;
export const DEFAULT_MIN_SIMILARITY = 0.35;
/**
 * At a later step an earlier task votes for what it did after the previous tool only when it is
 * this similar: a step taken in another kind of task is weak evidence for this one (chosen on
 * half a of bench/routing-generalisation.ts among 0.35, 0.5 and 0.65: at 0.35 similar tasks'
 * votes lowered TMDB's later-step hit@5 below fusing without them).
 */
export const LATER_STEP_MIN_SIMILARITY = 0.65;
/** How many tasks' nearest tasks are remembered (TaskMemory.nearest). */
const NEAREST_MEMO_SIZE = 64;
/** A scan's bound is compared with this much room: sums in another order round differently, by far less. */
const REACH_SLACK = 1e-9;
const NO_SLOTS = new SlotList();

/** The same for the first step (votes for the tools similar tasks started with); chosen on half a, as above. */
export const FIRST_STEP_MIN_SIMILARITY = DEFAULT_MIN_SIMILARITY;

/** Index terms of a task's shape; of its whole text when the shape keeps no meaningful word. */
function taskTerms(text: string): Set<string> {
  const shape = new Set(analyze(taskShape(text)));
  return shape.size > 0 ? shape : new Set(analyze(text));
}

interface Entry {
  readonly id: string;
  /** The task's number: a scan sums into arrays by slot. */
  readonly slot: number;
  readonly tools: readonly string[];
  readonly terms: ReadonlySet<string>;
}

function votedTools(tools: readonly string[], which: NonNullable<VoteOptions["tools"]>): string[] {
  if (which === "all") return [...new Set(tools)];
  if (which === "first") return tools.slice(0, 1);
  const next = new Set<string>();
  tools.forEach((tool, i) => {
    const following = tools[i + 1];
    if (tool === which.after && following !== undefined) next.add(following);
  });
  return [...next];
}

export class TaskMemory {
  readonly #entries = new Map<string, Entry>();
  /** Term → the tasks (by slot) whose terms hold it. */
  readonly #postings = new Map<string, SlotList>();
  /** By slot: the task there (undefined: a free slot), and its norm as of `#normVersions[slot]`. */
  readonly #bySlot: (Entry | undefined)[] = [];
  readonly #freeSlots: number[] = [];
  readonly #norms: number[] = [];
  readonly #normVersions: number[] = [];
  /** IDF and task norms depend on the whole memory: cached, and dropped (IDF) or outdated (norms) whenever it changes. */
  readonly #idfCache = new Map<string, number>();
  /**
   * The nearest tasks of the tasks asked most recently: a chat asks for its own task at every
   * step, and with thousands of remembered tasks one lookup costs more than the rest of a route
   * (0.35 ms at 2,800 tasks, 1.9 ms at 11,000). Dropped whenever the memory changes.
   */
  readonly #nearestMemo = new LRUCache<string, readonly NearTask[]>({ max: NEAREST_MEMO_SIZE });
  #version = 0;
  /** Lookups that scanned the memory (not answered from the memo); a test seam. */
  protected scans = 0;
  /** Postings the scans read; a test seam (pruning shows here). */
  protected visited = 0;
  /** Whether a scan reads every task that shares a word (the pruned scan's reference); a test seam. */
  protected readonly exhaustive: boolean = false;

  /** A memory holding `tasks` (a later task with an id seen before replaces it). */
  static build(tasks: Iterable<RememberedTask>): TaskMemory {
    const memory = new TaskMemory();
    for (const task of tasks) memory.add(task);
    return memory;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Additions and removals since the memory was built: what a result computed from it is valid for. */
  get version(): number {
    return this.#version;
  }

  /** Remembers a task; tasks without tools or without meaningful words are not kept. */
  add(task: RememberedTask): void {
    this.remove(task.id);
    this.#changed();
    const terms = taskTerms(task.task);
    if (terms.size === 0 || task.tools.length === 0) return;
    const slot = this.#freeSlots.pop() ?? this.#bySlot.length;
    const entry = { id: task.id, slot, tools: [...task.tools], terms };
    this.#entries.set(task.id, entry);
    this.#bySlot[slot] = entry;
    for (const term of terms) {
      let slots = this.#postings.get(term);
      if (slots === undefined) this.#postings.set(term, (slots = new SlotList()));
      slots.add(slot);
    }
  }

  remove(id: string): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    this.#changed();
    for (const term of entry.terms) {
      const slots = this.#postings.get(term);
      slots?.delete(entry.slot);
      if (slots?.size === 0) this.#postings.delete(term);
    }
    this.#entries.delete(id);
    this.#bySlot[entry.slot] = undefined;
    this.#freeSlots.push(entry.slot);
  }

  #changed(): void {
    this.#version += 1;
    this.#idfCache.clear();
    this.#nearestMemo.clear();
  }

  #idf(term: string): number {
    let idf = this.#idfCache.get(term);
    if (idf === undefined) {
      const n = this.#postings.get(term)?.size ?? 0;
      idf = Math.log(1 + (this.#entries.size + 1) / (n + 0.5));
      this.#idfCache.set(term, idf);
    }
    return idf;
  }

  #norm(terms: Iterable<string>): number {
    let sum = 0;
    for (const term of terms) sum += this.#idf(term) ** 2;
    return Math.sqrt(sum);
  }

  /** The earlier tasks most similar to `task`, most similar first, at least `minSimilarity`. */
  nearest(task: string, neighbours = DEFAULT_NEIGHBOURS, minSimilarity = DEFAULT_MIN_SIMILARITY): NearTask[] {
    if (this.#entries.size === 0) return [];
    const key = `${neighbours}\u0000${minSimilarity}\u0000${task}`;
    let near = this.#nearestMemo.get(key);
    if (near === undefined) this.#nearestMemo.set(key, (near = this.#scan(task, neighbours, minSimilarity)));
    return [...near];
  }

  #scan(task: string, neighbours: number, minSimilarity: number): NearTask[] {
    this.scans += 1;
    const terms = [...taskTerms(task)];
    const queryNorm = this.#norm(terms);
    if (queryNorm === 0) return [];
    const near: NearTask[] = [];
    // Each query term's idf², found once: every task in reach adds some of them.
    const squares = terms.map((term) => this.#idf(term) ** 2);
    for (const slot of this.#reachable(terms, queryNorm, minSimilarity)) {
      const entry = this.#bySlot[slot];
      if (entry === undefined) continue;
      const similarity = this.#sharedWeight(terms, squares, entry) / (queryNorm * this.#normOf(entry));
      if (similarity >= minSimilarity) near.push({ id: entry.id, similarity, tools: entry.tools });
    }
    near.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return near.slice(0, Math.max(0, neighbours));
  }

  /** The task's norm for the memory as it is (computed once per version of the memory). */
  #normOf(entry: Entry): number {
    if (this.#normVersions[entry.slot] !== this.#version) {
      this.#norms[entry.slot] = this.#norm(entry.terms);
      this.#normVersions[entry.slot] = this.#version;
    }
    return this.#norms[entry.slot] ?? 0;
  }

  /** Σ idf² of the terms the task shares with the query, added in the query's order (the cosine's numerator). */
  #sharedWeight(terms: readonly string[], squares: readonly number[], entry: Entry): number {
    let dot = 0;
    terms.forEach((term, i) => {
      if (entry.terms.has(term)) dot += squares[i] ?? 0;
    });
    return dot;
  }

  /**
   * The remembered tasks that can be `minSimilarity` similar to the query. A task's norm is at
   * least √(what it shares), so its cosine is at most √shared / queryNorm: it needs shared ≥
   * (minSimilarity · queryNorm)². Terms are read rarest first (MaxScore, as in
   * retrieval/max-score.ts); once the unread terms together weigh less than that, a task not met
   * yet cannot qualify, and the unread (common) terms are only looked up for the tasks met.
   */
  #reachable(terms: readonly string[], queryNorm: number, minSimilarity: number): number[] {
    const needed = this.exhaustive || minSimilarity <= 0 ? 0 : (minSimilarity * queryNorm) ** 2 * (1 - REACH_SLACK);
    const order = terms.filter((term) => this.#postings.has(term)).sort((a, b) => this.#idf(b) - this.#idf(a));
    // unread[j]: Σ idf² of the terms from order[j] on.
    const unread = new Array<number>(order.length + 1).fill(0);
    for (let j = order.length - 1; j >= 0; j -= 1) unread[j] = (unread[j + 1] ?? 0) + this.#idf(order[j] ?? "") ** 2;
    const acc = freshSums(this.#bySlot.length);
    const { sums, stamps, stamp } = acc;
    const met = freshMet(this.#bySlot.length);
    const metSlots = met.slots;
    let read = 0;
    for (; read < order.length && (unread[read] ?? 0) >= needed; read += 1) {
      const weight = this.#idf(order[read] ?? "") ** 2;
      const { slots, size } = this.#postings.get(order[read] ?? "") ?? NO_SLOTS;
      for (let p = 0; p < size; p += 1) {
        const slot = slots[p] ?? 0;
        if (stamps[slot] !== stamp) {
          stamps[slot] = stamp;
          sums[slot] = 0;
          metSlots[met.count] = slot;
          met.count += 1;
        }
        sums[slot] = (sums[slot] ?? 0) + weight;
      }
      this.visited += size;
    }
    for (; read < order.length; read += 1) {
      const left = unread[read] ?? 0;
      keepMet(met, acc, (slot) => (sums[slot] ?? 0) + left >= needed);
      const term = order[read] ?? "";
      const weight = this.#idf(term) ** 2;
      const postings = this.#postings.get(term) ?? NO_SLOTS;
      this.visited += Math.min(met.count, postings.size);
      // A common term's postings are longer than the tasks left: those are looked up in it instead.
      if (postings.size <= met.count) {
        for (const slot of postings.slots) if (stamps[slot] === stamp) sums[slot] = (sums[slot] ?? 0) + weight;
      } else
        for (let m = 0; m < met.count; m += 1) {
          const slot = metSlots[m] ?? 0;
          if (this.#bySlot[slot]?.terms.has(term)) sums[slot] = (sums[slot] ?? 0) + weight;
        }
    }
    const reachable: number[] = [];
    for (let m = 0; m < met.count; m += 1) if ((sums[metSlots[m] ?? 0] ?? 0) >= needed) reachable.push(metSlots[m] ?? 0);
    return reachable;
  }

  /** Tools voted for by the nearest earlier tasks, most votes first; empty for an unfamiliar task. */
  votes(task: string, options: VoteOptions = {}): Vote[] {
    const neighbours = options.neighbours ?? DEFAULT_NEIGHBOURS;
    const excluding = options.excluding;
    const near =
      excluding === undefined
        ? this.nearest(task, neighbours, options.minSimilarity ?? DEFAULT_MIN_SIMILARITY)
        : this.nearest(task, neighbours + 1, options.minSimilarity ?? DEFAULT_MIN_SIMILARITY)
            .filter((n) => n.id !== excluding)
            .slice(0, neighbours);
    const score = new Map<string, { score: number; tasks: number }>();
    for (const { similarity, tools } of near) {
      const voted = votedTools(tools, options.tools ?? "first");
      voted.forEach((tool, position) => {
        const vote = score.get(tool) ?? { score: 0, tasks: 0 };
        // Later tools of a task count a little less: the first one is what the task starts with.
        vote.score += similarity / (1 + 0.25 * position);
        vote.tasks += 1;
        score.set(tool, vote);
      });
    }
    const ranked = sortRanked([...score].map(([name, v]) => ({ name, score: v.score })));
    return ranked.map((r) => ({ ...r, tasks: score.get(r.name)?.tasks ?? 0 }));
  }
}
