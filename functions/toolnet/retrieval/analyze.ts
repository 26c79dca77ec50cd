import { isAsciiDigit, isAsciiLower, isAsciiUpper } from "../../text/ascii-chars";
import { stem } from "./stem";

/**
 * Text → index terms, shared by documents and queries so both sides meet on the same terms:
 * identifiers are split (camelCase, snake_case, kebab-case, path segments), words lower-cased,
 * common English function words dropped, and English words stemmed.
 */

// Snowball's English stop list (generic function words only, no domain words), so that long
// chat-style tasks are not ranked on "the", "would", "me".
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers " +
    "herself it its itself they them their theirs themselves what which who whom this that these those am is " +
    "are was were be been being have has had having do does did doing would should could ought a an the and " +
    "but if or because as until while of at by for with about against between into through during before after " +
    "above below to from up down in out on off over under again further then once here there when where why how " +
    "all any both each few more most other some such no nor not only own same so than too very s t can will just " +
    "don d ll m o re ve y"
  ).split(" "),
);

// Word-internal boundaries: "movieCredits" → "movie Credits", "HTMLParser" → "HTML Parser".
const LOWER_UPPER = /(\p{Ll})(\p{Lu})/gu;
const ACRONYM_WORD = /(\p{Lu})(\p{Lu}\p{Ll})/gu;
// Runs of letters and digits; every other character (space, _, -, /, {, ., …) separates words.
const WORD = /[\p{L}\p{N}]+/gu;

/** Splits identifiers and prose into lower-case words: `/person/{person_id}/movie_credits` → person, person, id, movie, credits. */
export function splitWords(text: string): string[] {
  return splitAsciiWords(text) ?? splitWordsByExpressions(text);
}

/** splitWords for any text, by Unicode regular expressions (what the ASCII pass must equal). */
export function splitWordsByExpressions(text: string): string[] {
  const spaced = text.replace(LOWER_UPPER, "$1 $2").replace(ACRONYM_WORD, "$1 $2");
  return (spaced.match(WORD) ?? []).map((word) => word.toLowerCase());
}

/**
 * splitWords for ASCII text (undefined for any other text) in one pass over its char codes, a few
 * times faster than the regular expressions: in ASCII the only letters are a–z and A–Z and the
 * only digits 0–9, so a word ends at any other character, before an upper-case letter that follows
 * a lower-case one, and before the last of two upper-case letters followed by a lower-case one,
 * exactly where the expressions split.
 */
function splitAsciiWords(text: string): string[] | undefined {
  const lower = text.toLowerCase();
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code > 127) return undefined;
    const upper = isAsciiUpper(code);
    if (!upper && !isAsciiLower(code) && !isAsciiDigit(code)) {
      if (start >= 0) words.push(lower.slice(start, i));
      start = -1;
    } else if (start < 0) {
      start = i;
    } else if (upper) {
      const before = text.charCodeAt(i - 1);
      if (isAsciiLower(before) || (isAsciiUpper(before) && isAsciiLower(text.charCodeAt(i + 1)))) {
        words.push(lower.slice(start, i));
        start = i;
      }
    }
  }
  if (start >= 0) words.push(lower.slice(start));
  return words;
}

// Vocabularies are small next to token counts, so memoising terms makes indexing about twice as
// fast; cleared when full to bound memory in a long-lived isolate.
const TERM_CACHE_LIMIT = 100_000;
const termCache = new Map<string, string | null>();

/** Index term for one lower-case word, or null when the word carries no meaning for ranking. */
export function termOf(word: string): string | null {
  const cached = termCache.get(word);
  if (cached !== undefined) return cached;
  const term = uncachedTermOf(word);
  if (termCache.size >= TERM_CACHE_LIMIT) termCache.clear();
  termCache.set(word, term);
  return term;
}

/** termOf without its memo, for callers that keep their own. */
function uncachedTermOf(word: string): string | null {
  return STOP_WORDS.has(word) ? null : stem(word);
}

// A word with a digit (a number, a code) is not joined into a compound.
const DIGIT = /\p{N}/u;

/** True when `word` has a digit (any script's); ASCII words are checked without the regular expression. */
function hasDigit(word: string): boolean {
  for (let i = 0; i < word.length; i += 1) {
    const code = word.charCodeAt(i);
    if (isAsciiDigit(code)) return true;
    if (code > 127) return DIGIT.test(word);
  }
  return false;
}

/**
 * Each pair of adjacent meaningful words of `words`, written together ("download file" →
 * "downloadfile"): stop words are skipped (not joined), and words with digits are not joined
 * (numbers, codes). A task's pairs meet identifiers that are lower-case compounds, with no
 * camelCase or underscore boundary to split on (`downloadfile`), and the pairs of a tool's own
 * title (its `phrases` field, tool-document.ts), so words the task has side by side count more.
 */
export function adjacentCompounds(words: readonly string[]): string[] {
  const compounds: string[] = [];
  let previous: string | undefined;
  for (const word of words) {
    if (termOf(word) === null) continue;
    const joinable = !hasDigit(word);
    if (joinable && previous !== undefined) compounds.push(previous + word);
    previous = joinable ? word : undefined;
  }
  return compounds;
}

/** The words of a task text as a search sees them: its words (splitWords), then their adjacent compounds. Documents are indexed with splitWords alone. */
export function queryWords(text: string): string[] {
  const words = splitWords(text);
  const compounds = adjacentCompounds(words);
  return compounds.length === 0 ? words : [...words, ...compounds];
}

/** One word of a task text as a search sees it: its `value` (its index term, or that term's id), and whether it may be joined into a compound (no digit). */
export interface QueryWord<T> {
  readonly value: T;
  readonly joinable: boolean;
}

/** The values of a task text's words, in `queryWords` order, stop words (`lookup` gives null) left out: its words, then their adjacent compounds. */
function queryValues<T>(text: string, lookup: (word: string) => QueryWord<T> | null): T[] {
  const values: T[] = [];
  const compounds: string[] = [];
  let previous: string | undefined;
  for (const word of splitWords(text)) {
    const known = lookup(word);
    if (known === null) continue;
    values.push(known.value);
    if (known.joinable && previous !== undefined) compounds.push(previous + word);
    previous = known.joinable ? word : undefined;
  }
  for (const compound of compounds) {
    const known = lookup(compound);
    if (known !== null) values.push(known.value);
  }
  return values;
}

function termWord(word: string): QueryWord<string> | null {
  const term = termOf(word);
  return term === null ? null : { value: term, joinable: !hasDigit(word) };
}

/** The index terms of a task text as a search sees them: those of `queryWords`, in its order, stop words left out (one pass). */
export function queryTerms(text: string): string[] {
  return queryValues(text, termWord);
}

// The words and adjacent compounds of about a thousand tasks (≈ 1.5 MB); cleared when full.
const QUERY_WORD_LIMIT = 20_000;

/**
 * `queryTerms` as an index's term ids, memoised per word: a search then looks each word up once,
 * in a map of the words tasks use, instead of in the term memo and then in the index's map of
 * every term (two lookups in maps of ~100,000 entries, which miss the CPU's caches).
 */
export class QueryTermIds {
  readonly #memo = new Map<string, QueryWord<number> | null>();
  readonly #idOf: (term: string) => number;

  /** `idOf` gives a term's id in the index, -1 for a term it does not have. */
  constructor(idOf: (term: string) => number) {
    this.#idOf = idOf;
  }

  /** The ids of `queryTerms(text)`, in its order (-1 for a term the index does not have). */
  of(text: string): number[] {
    return queryValues(text, this.#lookup);
  }

  /** Forgets every word: call it when the index gains a term, which a remembered word may stem to. */
  clear(): void {
    this.#memo.clear();
  }

  readonly #lookup = (word: string): QueryWord<number> | null => {
    let known = this.#memo.get(word);
    if (known === undefined) {
      // Not through termOf's memo: this one remembers the word already.
      const term = uncachedTermOf(word);
      known = term === null ? null : { value: this.#idOf(term), joinable: !hasDigit(word) };
      if (this.#memo.size >= QUERY_WORD_LIMIT) this.#memo.clear();
      this.#memo.set(word, known);
    }
    return known;
  };
}

/** All index terms of `text`, in order, repeats kept (term frequency matters to BM25). */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  for (const word of splitWords(text)) {
    const term = termOf(word);
    if (term !== null) terms.push(term);
  }
  return terms;
}
