import { splitWords, termOf } from "./retrieval/analyze";
import { UNMATCHED_TERM } from "./retrieval/learned-field";
import { taskShape } from "./task-shape";

/**
 * Which words of a request each tool it chose learns (retrieval/learned-field.ts). Crediting
 * every word of a long multi-tool request to one tool teaches it the other tools' words, and on
 * big look-alike catalogs that hurts (issue 45's prototype: Seal-Tools 0.880 → 0.820). So a
 * request is cut into its parts (sentences, clauses, "and then"), each part goes to the chosen
 * tool whose own text matches it best, a part that names none of them goes with its nearest
 * part that does, and a tool learns only its parts' words. Words are those of the request's
 * shape (task-shape.ts): argument values (names, numbers, quoted text) are not what a tool is
 * for, and are not kept.
 */

/** How strongly a kind of evidence teaches: explicit (a posted trajectory, a positive score) above observed use. */
export const EVIDENCE_WEIGHT = { explicit: 2, observed: 1 } as const;
export type EvidenceKind = keyof typeof EVIDENCE_WEIGHT;

/** A tool whose calls all failed upstream was still the chatbot's choice, but weighs this share. */
export const FAILED_CALL_SHARE = 0.5;
/** The later tools of a request weigh this share of its first (the first step is what the words name best). */
export const LATER_TOOL_SHARE = 0.5;
/** One request teaches a tool at most this many words. */
export const TERMS_PER_REQUEST = 24;

/**
 * A first tool the request's words alone do not rank among their best this many (the tool's own
 * text, no learning) was found some other way: it learns UNMATCHED_TERM (learned-field.ts) besides
 * the request's words. Five: what a chatbot is offered.
 */
export const WORDS_FIND_DEPTH = 5;

/**
 * A conversation that chose one tool for its words is evidence against the other tools that
 * learned those words and that the words ranked above the chosen one (own text plus learned
 * field): each such rival loses this share of the weight the chosen tool gains, on the words of
 * the request it holds (pairwise preference from implicit feedback, "chosen over skipped above":
 * the chosen tool over the ones its words led to first). A careless call teaches the wrong tool a request's words; later conversations with
 * the same words that choose another tool take them back, so one wrong choice does not outlast
 * the tenant's majority.
 */
export const RIVAL_SHARE = 0.5;

/** Only the words' best this many tools for a request can lose its words: what a chatbot is offered. */
export const RIVAL_DEPTH = 5;

/** Each chosen tool's match of a part of the request with its own text (e.g. its summed BM25 impacts), in `tools` order. */
export type OwnTextAffinity = (part: string, tools: readonly string[]) => readonly number[];

export interface ChosenTools {
  /** The tools in the order they were called (repeats allowed). */
  readonly tools: readonly string[];
  /** Per tool, true when every call of it failed. */
  readonly failed?: ReadonlySet<string>;
  /** True when the request's words alone did not rank the first tool among their WORDS_FIND_DEPTH best. */
  readonly unmatchedFirst?: boolean;
}

const PART_BREAK = /[.!?;,:]+\s+|\s+(?:and then|then|and|after that|afterwards|also|additionally|as well as|finally|plus|before|after)\s+/i;

/** The index terms of a request part's shape, distinct, in order. */
export function shapeTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of splitWords(taskShape(text))) {
    const term = termOf(word);
    if (term !== null && !terms.includes(term)) terms.push(term);
  }
  return terms;
}

/** The words each chosen tool learns from `task`, weighed: tool → term → weight. */
export function attributeRequest(task: string, chosen: ChosenTools, kind: EvidenceKind, affinity: OwnTextAffinity): Map<string, Map<string, number>> {
  const tools = [...new Set(chosen.tools)];
  const parts = tools.length < 2 ? [task] : task.split(PART_BREAK).filter((part) => shapeTerms(part).length > 0);
  const owners = tools.length < 2 ? [0] : partOwners(parts, tools, affinity);
  const learned = new Map<string, Map<string, number>>();
  const weightOf = (tool: string): number =>
    EVIDENCE_WEIGHT[kind] * (tool === tools[0] ? 1 : LATER_TOOL_SHARE) * (chosen.failed?.has(tool) ? FAILED_CALL_SHARE : 1);
  const teach = (tool: string, part: string): void => {
    const weight = weightOf(tool);
    let words = learned.get(tool);
    if (words === undefined) learned.set(tool, (words = new Map()));
    for (const term of shapeTerms(part)) if (words.size < TERMS_PER_REQUEST && !words.has(term)) words.set(term, weight);
  };
  parts.forEach((part, i) => {
    const tool = tools[owners[i] ?? 0];
    if (tool !== undefined) teach(tool, part);
  });
  // A first tool that no part names (a sign-in before the action asked for) was still what the
  // request led to first: it learns the whole request, as a one-tool request's tool does.
  const first = tools[0];
  if (first !== undefined && !learned.has(first)) for (const part of parts) teach(first, part);
  const firstWords = first === undefined ? undefined : learned.get(first);
  // Beside the words, not one of them: the budget of words per request does not count it.
  if (chosen.unmatchedFirst === true && first !== undefined) learned.set(first, new Map([...(firstWords ?? []), [UNMATCHED_TERM, weightOf(first)]]));
  return learned;
}

/** Per part, the index of the tool it goes to: the best own-text match, else its nearest part's, else the first tool. */
function partOwners(parts: readonly string[], tools: readonly string[], affinity: OwnTextAffinity): number[] {
  const best = parts.map((part) => {
    const scores = affinity(part, tools);
    let at = -1;
    let top = 0;
    scores.forEach((score, i) => {
      if (score > top) [at, top] = [i, score];
    });
    return at;
  });
  return best.map((owner, i) => {
    if (owner >= 0) return owner;
    for (let distance = 1; distance < parts.length; distance += 1) {
      // The part before first: a request usually names the need, then adds detail.
      const before = best[i - distance] ?? -1;
      if (before >= 0) return before;
      const after = best[i + distance] ?? -1;
      if (after >= 0) return after;
    }
    return 0;
  });
}

/**
 * The words a request takes away from its rivals (RIVAL_SHARE): `rivals` are the tools the words
 * ranked above the chosen first tool, each with the terms use taught it and their weights; each
 * loses the first tool's learned words it holds, at minus RIVAL_SHARE of their weight, never more
 * than use gave it. Only what use taught: a standing negative would cancel what later requests
 * teach it, and one conversation does not overrule the example requests the tenant's model wrote
 * for a tool. The pseudo-word is no word of the request and is never taken.
 */
export function rivalWords(
  learned: ReadonlyMap<string, ReadonlyMap<string, number>>,
  first: string,
  rivals: readonly { tool: string; fromUse: ReadonlyMap<string, number> }[],
): Map<string, Map<string, number>> {
  const taken = new Map<string, Map<string, number>>();
  const firstWords = learned.get(first);
  if (firstWords === undefined) return taken;
  for (const { tool, fromUse } of rivals) {
    if (learned.has(tool)) continue;
    const words = new Map<string, number>();
    for (const [term, weight] of firstWords) {
      const held = fromUse.get(term) ?? 0;
      if (term !== UNMATCHED_TERM && weight > 0 && held > 0) words.set(term, -Math.min(RIVAL_SHARE * weight, held));
    }
    if (words.size > 0) taken.set(tool, words);
  }
  return taken;
}
