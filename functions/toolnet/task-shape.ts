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
