import { analyze } from "./retrieval/analyze";

/**
 * Whether a description says nothing its name does not (rule "restating-descriptions-dropped"):
 * every word it has, stemmed, is one of the name's words or of `also` (say, the schema's type),
 * once function words ("the", "of") are set aside. "City" and "The city" restate `city`,
 * "User ID" restates `user_id`, "The ID of the movie" `movie_id`, "Page number" a `page` of type
 * number; "City name" (a name, not an id) and "Latitude" for `lat` do not. Words are compared as
 * retrieval indexes them (retrieval/analyze.ts: identifiers split, English words stemmed).
 */
export function restatesName(text: string, name: string, also: readonly string[] = []): boolean {
  const own = new Set([...analyze(name), ...also.flatMap((word) => analyze(word))]);
  return analyze(text).every((term) => own.has(term));
}
