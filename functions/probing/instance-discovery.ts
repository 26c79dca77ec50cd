import type { ToolDefinition, ToolParameter } from "../tools/definition";
import type { ArgumentSet, DataFlowBinding, FillContext, ValueCandidate, ValueSource } from "./discovery-types";
import { valueCandidates } from "./value-candidates";
import { isIdLike } from "./vocabulary";

export { nameWords } from "./vocabulary";
export type { ArgumentSet, DataFlowBinding, FillContext, ProbedOutput, ValueCandidate, ValueSource } from "./discovery-types";
export { observeValues, type ObserveOptions } from "./response-samples";
export { effectiveSchema } from "./parameter-schema";
export { dataFlowCandidates } from "./data-flow-values";
export { parameterCandidates } from "./value-candidates";

/**
 * Instance discovery (§4.1), zero-token path: argument sets for a tool proposed from its
 * parameter schemas alone, and from what already-probed tools returned (data flow: a required
 * `person_id` is filled from the `results[].id` of a probed `/search/person`). The paper asks the
 * model for every instance; most REST parameters document enough (enum, default, example, format,
 * a telling name) that a plain rule finds a working call for free, so the model is kept for the
 * tools where these rules fail. Everything here is deterministic. This module combines the values
 * into argument sets; the values come from value-candidates.ts (the rules of value-rules.ts, data
 * flow from data-flow-values.ts over the samples of response-samples.ts, typed by
 * parameter-schema.ts).
 */

const DEFAULT_MAX_CANDIDATES = 3;

interface Choice {
  param: ToolParameter;
  candidate: ValueCandidate;
}

/** A parameter with its candidate values, best first (there is at least one). */
interface Ranked {
  param: ToolParameter;
  values: ValueCandidate[];
  best: ValueCandidate;
}

function toSet(choices: Choice[]): ArgumentSet {
  const args: Record<string, unknown> = {};
  const sources: Record<string, ValueSource> = {};
  const dataFlow: DataFlowBinding[] = [];
  let score = 1;
  for (const { param, candidate } of choices) {
    // defineProperty: parameter names are caller text, and `__proto__` must stay a plain key.
    Object.defineProperty(args, param.name, { value: candidate.value, enumerable: true, writable: true, configurable: true });
    Object.defineProperty(sources, param.name, { value: candidate.source, enumerable: true, writable: true, configurable: true });
    if (candidate.from !== undefined) dataFlow.push({ parameter: param.name, tool: candidate.from.tool, path: candidate.from.path, value: candidate.value });
    if (param.required) score = Math.min(score, candidate.score);
  }
  // Values from one response belong together (a show and ITS season); each extra producer costs a little.
  const producers = new Set(dataFlow.map((d) => d.tool)).size;
  return { arguments: args, score: score * 0.97 ** Math.max(0, producers - 1), sources, dataFlow };
}

/**
 * Ranked argument sets for a tool, without a model. Candidates: every required parameter's best
 * value with every optional parameter's documented value; the same with required parameters only
 * (an optional default can break a call); one set per runner-up value of a required parameter;
 * and, with `outputs`, one set per producing tool (values of one response belong together) and
 * one with strong data-flow values for optional identifiers (`place_id` from `/find_places`).
 * Sets are ranked by their weakest required value, distinct, at most `maxCandidates`.
 */
export function fillArguments(def: ToolDefinition, context: FillContext = {}): ArgumentSet[] {
  const outputs = context.outputs ?? [];
  const max = Math.max(1, context.maxCandidates ?? DEFAULT_MAX_CANDIDATES);
  const perParam: Ranked[] = [];
  for (const param of def.parameters) {
    const values = valueCandidates(def, param, outputs);
    const best = values[0];
    // A required parameter without any value cannot be called at all; the placeholder rule makes that rare.
    if (best === undefined) {
      if (param.required) return [];
      continue;
    }
    perParam.push({ param, values, best });
  }
  const required = perParam.filter((p) => p.param.required);
  const optional = perParam.filter((p) => !p.param.required);
  const bestOf = (p: Ranked): Choice => ({ param: p.param, candidate: p.best });
  const documentedOptional = optional.filter((p) => p.values[0]?.source !== "data_flow").map(bestOf);
  const flowOptional = optional
    .filter((p) => isIdLike(p.param.name))
    .map((p) => ({ param: p.param, candidate: p.values.find((v) => v.source === "data_flow" && v.score >= 0.8) }))
    .filter((c): c is Choice => c.candidate !== undefined);
  const base = required.map(bestOf);

  const sets: ArgumentSet[] = [toSet([...base, ...documentedOptional])];
  if (documentedOptional.length > 0) {
    const minimal = toSet(base);
    sets.push({ ...minimal, score: minimal.score * 0.9 });
  }
  if (flowOptional.length > 0) sets.push(toSet([...base, ...documentedOptional, ...flowOptional]));
  for (const [i, p] of required.entries()) {
    for (const alternative of p.values.slice(1, 1 + max)) {
      const choices = base.map((c, j) => (j === i ? { param: p.param, candidate: alternative } : c));
      sets.push(toSet([...choices, ...documentedOptional]));
    }
  }
  // One set per producing tool: every parameter it can fill, filled from its response.
  const producers = new Set(perParam.flatMap((p) => p.values.flatMap((v) => (v.from === undefined ? [] : [v.from.tool]))));
  for (const tool of producers) {
    const fromTool = (p: Ranked): ValueCandidate | undefined => p.values.find((v) => v.from?.tool === tool);
    const choices = required.map((p) => {
      const own = fromTool(p);
      return own === undefined ? bestOf(p) : { param: p.param, candidate: own };
    });
    const optionalChoices = optional
      .map((p) => {
        const own = fromTool(p);
        const strong = own !== undefined && own.score >= 0.8 && isIdLike(p.param.name);
        return strong ? { param: p.param, candidate: own } : p.values[0]?.source === "data_flow" ? undefined : bestOf(p);
      })
      .filter((c): c is Choice => c !== undefined);
    sets.push(toSet([...choices, ...optionalChoices]));
  }
  const seen = new Set<string>();
  return sets
    .map((set, order) => ({ set, order }))
    .sort((a, b) => b.set.score - a.set.score || a.order - b.order)
    .map(({ set }) => set)
    .filter((set) => {
      const key = JSON.stringify(set.arguments);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, max);
}

/** Whether a response shows the tool's output shape, rather than an empty answer. */
export function isInformative(response: unknown): boolean {
  if (response === null || response === undefined || response === "") return false;
  if (Array.isArray(response)) return response.length > 0;
  if (typeof response !== "object") return true;
  const values = Object.values(response);
  if (values.length === 0) return false;
  // `{page: 1, results: [], total_results: 0}`: a search that found nothing documents nothing.
  // Its envelope is numbers; a string or an object beside the empty lists is content.
  const lists = values.filter(Array.isArray);
  if (lists.length === 0 || lists.some((list) => list.length > 0)) return true;
  return values.some((v) => typeof v === "string" || (typeof v === "object" && v !== null && !Array.isArray(v)));
}

/**
 * The required identifiers of a tool. When such a tool fails alone, it most likely needs an id
 * that only another tool returns (`/person/{person_id}`; or its documented example id is stale),
 * and asking the model to call it alone mostly buys a hallucinated id. Chain of probing defers
 * the model for these tools until data flow from the probed ones was tried, for free.
 */
export function requiredIdentifiers(def: ToolDefinition): string[] {
  return def.parameters.filter((p) => p.required && isIdLike(p.name)).map((p) => p.name);
}
