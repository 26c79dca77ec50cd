import { inverseDocumentFrequency } from "./impact-math";
import { sortRanked, type Ranked } from "./ranked";
import { NO_POSTINGS, type ScoredField, type SearchWork, termCeiling, termFrequencyPart, type TermPostings } from "./scored-field";
import { DROPPED, freshMet, freshSums, type MetSlots, type SlotSums } from "./slot-sums";
import { bestRanked, TopScores } from "./top-k";

/**
 * The k best tools of one BM25 field whose tools are numbered (slots) and whose terms know how
 * much they can add (the learned field, learned-field.ts), found without scoring every tool a
 * common term reaches: MaxScore (Turtle & Flood 1995) term at a time. Terms are read rarest
 * first, and once what the unread terms could still add to a tool nobody has met is below the
 * k-th best score so far, no such tool can enter the k best: the common terms ("can", "help",
 * "need", in most fields) are never read. What a term can add is bounded from its own postings
 * (its largest weight, its shortest field per unit of weight, the largest share a score keeps),
 * far below BM25's ceiling idf × (d + k₁ + 1), so the cut comes after fewer terms. The tools
 * still within reach are then scored exactly, term by term in the query's order, so scores,
 * order and ties are those of scoring every match (`rankEveryMatch`, kept as the reference).
 */

/** Bounds are compared with this much room: sums in another order round differently, by far less. */
const SLACK = 1e-9;

/** Looking a tool up in a term's field (a map lookup) costs about as much as walking this many postings (array reads). */
const WALK_RATHER_THAN_LOOK_UP = 8;

/** Finding a tool by its position in a term's postings (an array read) costs about as much as walking this many postings. */
const WALK_RATHER_THAN_FIND = 2;

/**
 * A query's terms (distinct, in query order; terms no tool has are left out) with their postings
 * and IDF: the first `count` of each array. One scratch serves every search (searches are
 * synchronous), as the sums and met slots do (slot-sums.ts): a route allocates nothing per term.
 */
interface QueryPostings {
  count: number;
  terms: string[];
  lists: TermPostings[];
  idfs: Float64Array;
  /** Positions in the arrays above, rarest term first (the reading order). */
  order: Int32Array;
  /** What the terms from each position of the reading order on can add together: to any tool's score, and to a met tool's sum before its share. */
  unreadScore: Float64Array;
  unreadSum: Float64Array;
}

const query: QueryPostings = {
  count: 0,
  terms: [],
  lists: [],
  idfs: new Float64Array(0),
  order: new Int32Array(0),
  unreadScore: new Float64Array(0),
  unreadSum: new Float64Array(0),
};

/** The scratch query for `terms`: each distinct term with postings once, at its first place. */
function queryPostings(field: ScoredField, terms: readonly string[]): QueryPostings {
  if (query.idfs.length < terms.length) {
    const room = Math.max(terms.length, 2 * query.idfs.length);
    query.idfs = new Float64Array(room);
    query.order = new Int32Array(room);
    query.unreadScore = new Float64Array(room + 1);
    query.unreadSum = new Float64Array(room + 1);
  }
  query.count = 0;
  for (let t = 0; t < terms.length; t += 1) {
    const term = terms[t] ?? "";
    if (isKept(term)) continue;
    const postings = field.postings(term);
    if (postings.size === 0) continue;
    query.terms[query.count] = term;
    query.lists[query.count] = postings;
    query.idfs[query.count] = inverseDocumentFrequency(field.documents, postings.size);
    query.count += 1;
  }
  return query;
}

/** Whether `term` is already among the scratch query's terms (a query has tens of terms: a scan beats a set made per search). */
function isKept(term: string): boolean {
  for (let j = 0; j < query.count; j += 1) if (query.terms[j] === term) return true;
  return false;
}

/** The k-th best of a search's partial scores, kept from search to search like the buffers above. */
let bestScores = new TopScores(1);

/** Every tool any term reaches, scored: the reference the pruned search must match exactly. */
export function rankEveryMatch(field: ScoredField, terms: readonly string[], limit: number, work?: SearchWork): Ranked[] {
  const { lists, idfs, count } = queryPostings(field, terms);
  const acc = freshSums(field.slotCount);
  const met = freshMet(field.slotCount);
  for (let i = 0; i < count; i += 1) addTerm(acc, field, lists[i] ?? NO_POSTINGS, idfs[i] ?? 0, met);
  const ranked = Array.from(met.slots.subarray(0, met.count), (slot) => ({ name: field.nameOf(slot), score: field.finish(slot, acc.sums[slot] ?? 0) }));
  if (work !== undefined) {
    for (let i = 0; i < count; i += 1) work.postings += lists[i]?.size ?? 0;
    work.rescored += ranked.length;
  }
  return sortRanked(ranked).slice(0, limit);
}

/** The `limit` best tools for `terms` (in query order), exactly as `rankEveryMatch` ranks them, reading far fewer postings. */
export function rankBest(field: ScoredField, terms: readonly string[], limit: number, work?: SearchWork): Ranked[] {
  if (!(limit > 0 && Number.isFinite(limit))) return rankEveryMatch(field, terms, limit, work);
  queryPostings(field, terms);
  const acc = freshSums(field.slotCount);
  const met = freshMet(field.slotCount);
  gather(acc, field, met, limit, work);
  exactSums(acc, field, met);
  if (contenders.scores.length < met.count) contenders.scores = new Float64Array(Math.max(met.count, 2 * contenders.scores.length));
  const { names, scores } = contenders;
  for (let m = 0; m < met.count; m += 1) {
    const slot = met.slots[m] ?? 0;
    names[m] = field.nameOf(slot);
    scores[m] = field.finish(slot, acc.sums[slot] ?? 0);
  }
  if (work !== undefined) work.rescored += met.count;
  return bestRanked(names, scores, met.count, limit);
}

/** The contenders' names and exact scores, by position in the met slots: one scratch for every search. */
const contenders = { names: [] as string[], scores: new Float64Array(0) };

/** The scratch query's reading order (rarest first, then query order) and what the unread terms can add from each position on. */
function readingOrder(field: ScoredField): void {
  const { order, idfs, lists, count, unreadScore, unreadSum } = query;
  // Insertion sort: tens of terms, no comparator closure, the same order as sorting by (IDF descending, position).
  for (let i = 0; i < count; i += 1) {
    let j = i;
    while (j > 0 && (idfs[order[j - 1] ?? 0] ?? 0) < (idfs[i] ?? 0)) {
      order[j] = order[j - 1] ?? 0;
      j -= 1;
    }
    order[j] = i;
  }
  unreadScore[count] = 0;
  unreadSum[count] = 0;
  for (let j = count - 1; j >= 0; j -= 1) {
    const i = order[j] ?? 0;
    const postings = lists[i] ?? NO_POSTINGS;
    const ceiling = termCeiling(postings, idfs[i] ?? 0, field.averageLength);
    unreadSum[j] = (unreadSum[j + 1] ?? 0) + ceiling;
    unreadScore[j] = (unreadScore[j + 1] ?? 0) + ceiling * Math.min(1, postings.maxShare);
  }
}

/**
 * Partial sums over the terms, rarest first, until the unread terms cannot lift a tool not yet
 * met into the `limit` best; then the unread terms only for the met tools that can still reach
 * them, dropping each tool as soon as it cannot. Leaves the tools still in reach in `met`.
 */
function gather(acc: SlotSums, field: ScoredField, met: MetSlots, limit: number, work?: SearchWork): void {
  readingOrder(field);
  const { lists, idfs, order, count, unreadScore, unreadSum } = query;
  const total = unreadScore[0] ?? 0;
  let read = 0;
  let kth = -Infinity;
  // What the k-th best was when last found, and what the terms read since could have added to it.
  let kthFoundAt = 0;
  for (; read < count; read += 1) {
    const left = unreadScore[read] ?? 0;
    // The k-th best is at most what the read terms can add, and at most what it was plus what
    // the terms read since can add: no need to look for it again while that is not below `left`.
    const kthCeiling = Math.min(total - left, kth === -Infinity ? total : kth / (1 - SLACK) + (unreadScore[kthFoundAt] ?? 0) - left);
    if (met.count >= limit && left < kthCeiling + SLACK) {
      kth = (kth === -Infinity ? firstLeaders(acc, field, met, limit) : nextLeaders(acc, field, limit)) * (1 - SLACK);
      kthFoundAt = read;
      if (left < kth * (1 - SLACK)) break;
    }
    const i = order[read] ?? 0;
    if (kth === -Infinity) addTerm(acc, field, lists[i] ?? NO_POSTINGS, idfs[i] ?? 0, met);
    else addTermLeading(acc, field, lists[i] ?? NO_POSTINGS, idfs[i] ?? 0, met);
    if (work !== undefined) work.postings += lists[i]?.size ?? 0;
  }
  for (; read < count; read += 1) {
    inReach(acc, field, met, unreadSum[read] ?? 0, kth);
    const i = order[read] ?? 0;
    const postings = lists[i] ?? NO_POSTINGS;
    // A common term's postings, far longer than the tools left: those are looked up in it instead.
    const walk = !lookUp(postings, met.count);
    if (walk) addTermToLive(acc, field, postings, idfs[i] ?? 0);
    else addTermToMet(acc, field, query.terms[i] ?? "", postings, idfs[i] ?? 0, met);
    if (work !== undefined) work.postings += walk ? postings.size : met.count;
    // Sums only grow: the k-th best too, found again among the leaders.
    kth = nextLeaders(acc, field, limit) * (1 - SLACK);
  }
  if (met.count >= limit)
    inReach(acc, field, met, 0, (kth === -Infinity ? firstLeaders(acc, field, met, limit) : nextLeaders(acc, field, limit)) * (1 - SLACK));
  forgetLeaders();
}

/** Every tool of `postings` gets the term's BM25 added to its partial sum; tools met for the first time join `met`. */
function addTerm(acc: SlotSums, field: ScoredField, postings: TermPostings, idf: number, met: MetSlots): void {
  const { sums, stamps, stamp } = acc;
  const metSlots = met.slots;
  const { slots, size } = postings;
  const parts = postings.parts(field.averageLength, field.lengths);
  for (let p = 0; p < size; p += 1) {
    const slot = slots[p] ?? 0;
    if (stamps[slot] !== stamp) {
      stamps[slot] = stamp;
      sums[slot] = 0;
      metSlots[met.count] = slot;
      met.count += 1;
    }
    sums[slot] = (sums[slot] ?? 0) + idf * (parts[p] ?? 0);
  }
}

/** `addTerm`, and each tool whose partial score reaches the leaders' threshold joins them. */
function addTermLeading(acc: SlotSums, field: ScoredField, postings: TermPostings, idf: number, met: MetSlots): void {
  const { sums, stamps, stamp } = acc;
  const { shares } = field;
  const metSlots = met.slots;
  const { slots, size } = postings;
  const parts = postings.parts(field.averageLength, field.lengths);
  const { marks, threshold } = leaders;
  for (let p = 0; p < size; p += 1) {
    const slot = slots[p] ?? 0;
    if (stamps[slot] !== stamp) {
      stamps[slot] = stamp;
      sums[slot] = 0;
      metSlots[met.count] = slot;
      met.count += 1;
    }
    const sum = (sums[slot] ?? 0) + idf * (parts[p] ?? 0);
    sums[slot] = sum;
    if (sum * (shares[slot] ?? 1) >= threshold && marks[slot] === 0) {
      marks[slot] = 1;
      leaders.slots[leaders.count] = slot;
      leaders.count += 1;
    }
  }
}

/**
 * The met tools whose partial score reached the k-th best when it was last found (`threshold`):
 * partial scores and the k-th best only grow, so the next k-th best is among them and those that
 * reach the threshold since (`addTermLeading` adds them). Finding it again reads these few, not
 * the thousand-odd tools a common query's terms meet. `marks` by slot: 1 for a leader (0 for
 * every slot between searches).
 */
const leaders = { slots: new Int32Array(0), count: 0, marks: new Uint8Array(0), threshold: Infinity };

/** The k-th best partial score of every met tool (raw, no slack); the tools that reach it become the leaders. */
function firstLeaders(acc: SlotSums, field: ScoredField, met: MetSlots, limit: number): number {
  if (leaders.marks.length < field.slotCount) {
    leaders.marks = new Uint8Array(Math.max(field.slotCount, 2 * leaders.marks.length));
    leaders.slots = new Int32Array(leaders.marks.length);
  }
  const worst = kthPartial(acc, field, met.slots, met.count, limit);
  leaders.count = 0;
  keepLeaders(acc, field, met.slots, met.count, worst);
  return worst;
}

/** The k-th best partial score (raw) among the leaders; those below it are leaders no more. */
function nextLeaders(acc: SlotSums, field: ScoredField, limit: number): number {
  const worst = kthPartial(acc, field, leaders.slots, leaders.count, limit);
  const count = leaders.count;
  leaders.count = 0;
  for (let l = 0; l < count; l += 1) leaders.marks[leaders.slots[l] ?? 0] = 0;
  keepLeaders(acc, field, leaders.slots, count, worst);
  return worst;
}

/** The first `count` of `slots` whose partial score reaches `threshold` become the leaders (compacted in place when `slots` is theirs), with that threshold. */
function keepLeaders(acc: SlotSums, field: ScoredField, slots: Int32Array, count: number, threshold: number): void {
  const { sums } = acc;
  const { shares } = field;
  for (let m = 0; m < count; m += 1) {
    const slot = slots[m] ?? 0;
    if ((sums[slot] ?? 0) * (shares[slot] ?? 1) >= threshold) {
      leaders.marks[slot] = 1;
      leaders.slots[leaders.count] = slot;
      leaders.count += 1;
    }
  }
  leaders.threshold = threshold;
}

/** No tool is a leader (the next search has its own). */
function forgetLeaders(): void {
  for (let l = 0; l < leaders.count; l += 1) leaders.marks[leaders.slots[l] ?? 0] = 0;
  leaders.count = 0;
  leaders.threshold = Infinity;
}

/**
 * The tools already met that have `term` get its BM25 added; those reaching the leaders'
 * threshold join them. Found by position when the postings keep positions by slot, else in the
 * tool's field (the same weight, so the same bits).
 */
function addTermToMet(acc: SlotSums, field: ScoredField, term: string, postings: TermPostings, idf: number, met: MetSlots): void {
  const { sums } = acc;
  const { lengths, averageLength, shares } = field;
  const { positions } = postings;
  if (positions !== undefined) {
    const parts = postings.parts(averageLength, lengths);
    for (let m = 0; m < met.count; m += 1) {
      const slot = met.slots[m] ?? 0;
      const at = (positions[slot] ?? 0) - 1;
      if (at >= 0) addToLive(sums, shares, slot, idf * (parts[at] ?? 0));
    }
    return;
  }
  for (let m = 0; m < met.count; m += 1) {
    const slot = met.slots[m] ?? 0;
    const weight = field.weightIn(slot, term);
    if (weight !== undefined) addToLive(sums, shares, slot, idf * termFrequencyPart(weight, lengths[slot] ?? 0, averageLength));
  }
}

/** Whether `postings` are better looked up for `metCount` tools than walked: far longer than the tools, by how dear a look-up is. */
function lookUp(postings: TermPostings, metCount: number): boolean {
  return postings.size > (postings.positions === undefined ? WALK_RATHER_THAN_LOOK_UP : WALK_RATHER_THAN_FIND) * metCount;
}

/** The tools of `postings` still in reach (met and not dropped) get the term's BM25 added; those reaching the leaders' threshold join them. */
function addTermToLive(acc: SlotSums, field: ScoredField, postings: TermPostings, idf: number): void {
  const { sums, stamps, stamp } = acc;
  const { slots, size } = postings;
  const parts = postings.parts(field.averageLength, field.lengths);
  for (let p = 0; p < size; p += 1) {
    const slot = slots[p] ?? 0;
    if (stamps[slot] === stamp) addToLive(sums, field.shares, slot, idf * (parts[p] ?? 0));
  }
}

/** Adds `score` to a met tool's sum; a tool whose partial score reaches the leaders' threshold joins them (none do between searches: it is +∞). */
function addToLive(sums: Float64Array, shares: ArrayLike<number>, slot: number, score: number): void {
  const sum = (sums[slot] ?? 0) + score;
  sums[slot] = sum;
  if (sum * (shares[slot] ?? 1) >= leaders.threshold && leaders.marks[slot] === 0) {
    leaders.marks[slot] = 1;
    leaders.slots[leaders.count] = slot;
    leaders.count += 1;
  }
}

/**
 * Keeps (in order, in place) the met tools that can still reach the k-th best if the unread terms
 * add their most (`left`, before the tool's share); the others are dropped (slot-sums.ts `keepMet`,
 * written out: no closure made per call).
 */
function inReach(acc: SlotSums, field: ScoredField, met: MetSlots, left: number, kth: number): void {
  const floor = kth * (1 - SLACK);
  const { sums, stamps } = acc;
  const { shares } = field;
  const { slots } = met;
  let kept = 0;
  for (let m = 0; m < met.count; m += 1) {
    const slot = slots[m] ?? 0;
    if (((sums[slot] ?? 0) + left) * (shares[slot] ?? 1) * (1 + SLACK) >= floor) {
      slots[kept] = slot;
      kept += 1;
    } else stamps[slot] = DROPPED;
  }
  met.count = kept;
}

/** The `limit`-th best partial score of the first `count` of `slots` (−∞: fewer). */
function kthPartial(acc: SlotSums, field: ScoredField, slots: Int32Array, count: number, limit: number): number {
  if (count < limit) return -Infinity;
  if (bestScores.k !== limit) bestScores = new TopScores(limit);
  const best = bestScores.cleared();
  const { sums } = acc;
  const { shares } = field;
  for (let m = 0; m < count; m += 1) {
    const slot = slots[m] ?? 0;
    best.offer((sums[slot] ?? 0) * (shares[slot] ?? 1));
  }
  return best.worst;
}

/**
 * The met tools' exact BM25 sums, in `acc`: each term's added in the query's order of terms, as
 * `rankEveryMatch` adds them (the same sums to the last bit). A rare term's postings are walked
 * (the met tools are the ones stamped); a common one's, far longer than the tools met, are looked
 * up per met tool instead.
 */
function exactSums(acc: SlotSums, field: ScoredField, met: MetSlots): void {
  const { sums } = acc;
  const { slots, count } = met;
  for (let m = 0; m < count; m += 1) sums[slots[m] ?? 0] = 0;
  for (let i = 0; i < query.count; i += 1) {
    const postings = query.lists[i] ?? NO_POSTINGS;
    const idf = query.idfs[i] ?? 0;
    if (lookUp(postings, count)) addTermToMet(acc, field, query.terms[i] ?? "", postings, idf, met);
    else addTermToLive(acc, field, postings, idf);
  }
}
