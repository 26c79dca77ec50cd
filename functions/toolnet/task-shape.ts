/**
 * What a task asks for, without the values it asks about: "movies directed by Sofia Coppola" and
 * "movies directed by Martin Scorsese" need the same tools, yet the names are their rarest (most
 * weighted) words. Task memory compares tasks by their shape, so that an earlier task with other
 * arguments still counts as similar. Removed: quoted text, words with digits (dates, ids,
 * amounts), e-mail addresses and URLs, and capitalised words inside a sentence (proper names; not acronyms).
 * Retrieval keeps the whole text: a product name in a task often names the tool's API.
 */

const QUOTED = /"[^"]*"|“[^”]*”|'[^'\s][^']*[^'\s]'(?=[\s.,!?;:]|$)/gu;
const URL_OR_EMAIL = /\S+@\S+|\b(?:https?:\/\/|www\.)\S+/giu;
const WITH_DIGIT = /\S*\p{N}\S*/gu;
// A capitalised word (Titanic, DiCaprio) that does not start a sentence; acronyms (TV, USD) stay,
// they usually name a kind of thing rather than one thing.
const PROPER_NAME = /(?<![.!?:]\s*|^\s*)(?<=\s|\()\p{Lu}\p{Ll}[\p{L}'’-]*/gu;

/** The task text with argument values (quoted, numeric, proper names, addresses) removed. */
export function taskShape(text: string): string {
  return text.replace(QUOTED, " ").replace(URL_OR_EMAIL, " ").replace(WITH_DIGIT, " ").replace(PROPER_NAME, " ");
}

// The same patterns without the global flag, whose `test` keeps no position between calls.
const QUOTED_ONCE = new RegExp(QUOTED.source, "u");
const PROPER_NAME_ONCE = new RegExp(PROPER_NAME.source, "u");

/** True when the task names something: quoted text, or a capitalised word that does not start a sentence (a proper name). */
export function namesEntity(text: string): boolean {
  return QUOTED_ONCE.test(text) || PROPER_NAME_ONCE.test(text);
}

// A word with three or more digits (`12345`, `tt0111161`, `B08N5W4NNB`); a year (`1994`, `1990s`)
// or a date (`2023-05-01`, `5/1/2023`) is not an identifier.
const DIGITS_WORD = /[\p{L}\p{N}_/.-]*\p{Nd}[\p{L}\p{N}_/.-]*/gu;
const THREE_DIGITS = /\p{Nd}\D*\p{Nd}\D*\p{Nd}/u;
const YEAR_OR_DATE = /^(?:(?:1[89]|20)\d\ds?|\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4})$/u;

/** True when the task writes a value that can fill an identifier input itself: a word with three or more digits that is not a year or a date. */
export function writesIdentifier(text: string): boolean {
  // Most tasks have no three digits at all: one scan, before the word-by-word one.
  if (!THREE_DIGITS.test(text)) return false;
  for (const [word] of text.matchAll(DIGITS_WORD)) {
    const trimmed = word.replace(/^[/.-]+|[/.-]+$/gu, "");
    if (THREE_DIGITS.test(trimmed) && !YEAR_OR_DATE.test(trimmed)) return true;
  }
  return false;
}
