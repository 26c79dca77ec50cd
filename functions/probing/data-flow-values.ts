import type { ToolDefinition, ToolParameter } from "../tools/definition";
import { rankCandidates } from "./candidate-ranking";
import type { ProbedOutput, ValueCandidate } from "./discovery-types";
import { coerce, effectiveSchema, valueType } from "./parameter-schema";
import type { SampleValue } from "./protocol";
import { splitPath } from "./response-samples";
import { CONTAINER_WORDS, ID_WORDS, isIdLike, nameWords, normalized, overlap, parameterEntity } from "./vocabulary";

/** Data flow: values for a parameter from what other, already-probed tools returned. */

/** Below this a data-flow match is more likely wrong than right. */
const MIN_DATA_FLOW_SCORE = 0.3;

interface Producer {
  /** Words of the producing tool's name and path. */
  words: Set<string>;
  /** Entity words of its inputs: what it is about, rather than what it lists. */
  inputs: Set<string>;
  /**
   * What a top-level `id` of its response is the id of, when its path has parameters: the entity
   * of the last one (`/movie/{movie_id}/reviews` → movie), or nothing known (`[]`) when the last
   * one is not an identifier.
   */
  echoes: readonly string[] | undefined;
  /** Its path, for what it lists after an input (`/users/{user_id}/playlists` → playlist). */
  path: string;
}

/** What a list under an input can hold when its path names no other record: more of the input's kind. */
const SAME_KIND_WORDS = new Set(["similar", "recommendation", "related", "alike", "more", "other"]);

function producerOf(output: ProbedOutput): Producer {
  const inputs = new Set((output.inputs ?? []).flatMap((name) => nameWords(name).filter((w) => !ID_WORDS.has(w))));
  const words = new Set([...nameWords(output.tool), ...nameWords(output.path ?? "")]);
  const placeholders = [...(output.path ?? "").matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? "");
  const last = placeholders[placeholders.length - 1];
  // `/tv/{tv_id}/season/{season_number}`: the top-level id is the season's, of unknown name.
  const echoes = last === undefined ? undefined : isIdLike(last) ? parameterEntity({ path: output.path ?? "" }, last) : [];
  return { words, inputs, echoes, path: output.path ?? "" };
}

/** Words of `path` after the last placeholder that names one of `entity` (`/tv/{tv_id}/season/{n}` and tv → season). */
function listedAfter(path: string, entity: readonly string[]): string[] {
  const segments = path.split("/");
  let at = -1;
  segments.forEach((segment, i) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    if (name !== undefined && nameWords(name).some((w) => entity.includes(w))) at = i;
  });
  return segments
    .slice(at + 1)
    .filter((segment) => !segment.startsWith("{"))
    .flatMap((segment) => nameWords(segment));
}

/**
 * How likely a sampled value is the argument a parameter wants, in [0, 1]. A field named like the
 * parameter (`place_id` for `place_id`) is strong; for an id parameter, a bare `id` field counts
 * when the object that holds it is the parameter's entity: named by the nearest non-container key
 * (`genres[].id` → genre, `production_companies[].id` → company), or else by the producing tool
 * (`/search/person` → `results[].id` is a person's id). The top-level `id` of a tool that takes
 * an id in its path is that input echoed (`/movie/{movie_id}/reviews` → a movie id, not a review
 * id), and an entity the producer takes as input names what it is about, not what it lists:
 * `/person/{person_id}/movie_credits` lists movies, not persons, and `/users/{user_id}/playlists`
 * lists playlists, so its `items[].id` never fills a `user_id`.
 */
function dataFlowScore(def: Pick<ToolDefinition, "path">, param: ToolParameter, sample: SampleValue, producer: Producer): number {
  const { keys, indices } = splitPath(sample.path);
  const leaf = keys[keys.length - 1];
  if (leaf === undefined) return 0;
  // Later items of a list, and deeper lists, are a little less likely to be the intended one.
  const position = 0.98 ** indices.reduce((a, b) => a + b, 0) * 0.9 ** Math.max(0, indices.length - 1);
  const paramName = normalized(param.name);
  const idParam = isIdLike(param.name);
  if (normalized(leaf) === paramName && !(idParam && nameWords(param.name).every((w) => ID_WORDS.has(w)))) return 0.9 * position;
  if (!idParam) return 0;
  const leafWords = nameWords(leaf);
  if (!leafWords.every((w) => ID_WORDS.has(w))) return 0;
  const entity = parameterEntity(def, param.name);
  if (entity.length === 0) return 0.3 * position;
  const parents = keys.slice(0, -1);
  if (parents.length === 0 && indices.length === 0 && producer.echoes !== undefined) {
    // An echo is a valid value, but a poor chain: the producer needed that very id as input.
    return overlap(entity, new Set(producer.echoes)) === 1 ? 0.5 : 0;
  }
  for (const key of [...parents].reverse()) {
    const words = nameWords(key);
    if (words.every((w) => CONTAINER_WORDS.has(w))) continue;
    // The nearest named owner decides: a `known_for[].id` is not a person's id.
    return overlap(entity, new Set(words)) === 1 ? 0.85 * position : 0;
  }
  const matched = entity.filter((w) => producer.words.has(w));
  if (matched.length === 0) return 0;
  if (!matched.every((w) => producer.inputs.has(w))) return 0.8 * (matched.length / entity.length) * position;
  // Listed under an input of that very kind: the same kind only when the path says so
  // (`/movie/{movie_id}/similar`); `/users/{user_id}/playlists` lists playlists, not users.
  const sameKind = listedAfter(producer.path, matched).every((w) => SAME_KIND_WORDS.has(w) || entity.includes(w));
  return sameKind ? 0.8 * (matched.length / entity.length) * 0.6 * position : 0;
}

/** Values for one parameter from probed outputs, best first. */
export function dataFlowCandidates(def: Pick<ToolDefinition, "path">, param: ToolParameter, outputs: readonly ProbedOutput[]): ValueCandidate[] {
  const type = valueType(param.name, effectiveSchema(param.schema));
  if (type === "boolean" || type === "object" || type === "array") return [];
  const out: ValueCandidate[] = [];
  for (const output of outputs) {
    const producer = producerOf(output);
    for (const sample of output.samples) {
      if (typeof sample.value === "boolean") continue;
      const value = coerce(sample.value, type);
      if (value === undefined) continue;
      const score = dataFlowScore(def, param, sample, producer);
      if (score >= MIN_DATA_FLOW_SCORE) out.push({ value, source: "data_flow", score, from: { tool: output.tool, path: sample.path } });
    }
  }
  return rankCandidates(out);
}
