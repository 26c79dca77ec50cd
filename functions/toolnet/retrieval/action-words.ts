import type { ToolDefinition } from "../../tools/definition";
import { splitWords } from "./analyze";

/**
 * What a tool does to its resource, in the words people use to ask for it. A task says "find my
 * notes" or "remove the note"; a tool says `GET /notes/search` or `DELETE /notes/{id}`. The tool's
 * own verb (the first word of its name, when it is one) or else its HTTP method picks one of the
 * generic actions (CRUD, with search apart from plain reads), and the action's everyday verbs go into the tool's document, so the
 * task's verb counts for the tool that does it and not for the one that does the opposite.
 * These are generic HTTP/CRUD words, not the vocabulary of any data set.
 */

type Action = "search" | "read" | "create" | "update" | "delete";

// "search" is a read that takes what to look for; a plain read lists or fetches by id.
const ACTION_WORDS: Record<Action, string> = {
  search: "search find look lookup query filter match seek",
  read: "get list show fetch retrieve read view check display",
  create: "create add new make post submit send register insert",
  update: "update edit change modify set replace rename patch",
  delete: "delete remove erase cancel clear destroy unset",
};

const VERB_ACTION: ReadonlyMap<string, Action> = new Map(
  (Object.entries(ACTION_WORDS) as [Action, string][]).flatMap(([action, words]) => words.split(" ").map((word) => [word, action] as const)),
);

const METHOD_ACTION: Record<ToolDefinition["method"], Action> = {
  GET: "read",
  HEAD: "read",
  POST: "create",
  PUT: "update",
  PATCH: "update",
  DELETE: "delete",
};

/** The tool's action: its name's leading verb when that is a known one, else its method's. */
export function toolAction(def: Pick<ToolDefinition, "name" | "method">): Action {
  const verb = splitWords(def.name)[0];
  return (verb === undefined ? undefined : VERB_ACTION.get(verb)) ?? METHOD_ACTION[def.method];
}

/** The everyday verbs of the tool's action, for its retrieval document. */
export function actionWords(def: Pick<ToolDefinition, "name" | "method">): string {
  return ACTION_WORDS[toolAction(def)];
}
