import type { ToolDefinition, ToolParameter } from "../tools/definition";
import { rankCandidates } from "./candidate-ranking";
import { dataFlowCandidates } from "./data-flow-values";
import type { FillContext, ProbedOutput, ValueCandidate } from "./discovery-types";
import { coerce, effectiveSchema, isSchema, valueType, type Schema, type ValueType } from "./parameter-schema";
import { descriptionValue, documentedValues, formatValue, nameValues } from "./value-rules";
import { isIdLike } from "./vocabulary";

/** Every value the rules propose for a parameter, ranked; placeholders, built from the same rules for arrays and body objects. */

const MAX_VALUE_DEPTH = 3;

/** Every value the rules propose for one parameter, coerced to its type, best first. */
export function valueCandidates(def: ToolDefinition, param: ToolParameter, outputs: readonly ProbedOutput[], depth = 0): ValueCandidate[] {
  const schema = effectiveSchema(param.schema);
  const type = valueType(param.name, schema);
  const raw: ValueCandidate[] = documentedValues(schema, param.required);
  // Optional parameters take data flow only for identifiers (`place_id`): an `amount` found in some
  // other response is no better than leaving it out.
  if (outputs.length > 0 && (param.required || isIdLike(param.name))) raw.push(...dataFlowCandidates(def, param, outputs));
  if (param.required) {
    // Optional parameters get the schema's own values (and strong data flow) only: a guessed
    // value, even one the description mentions ("possible values are: pescetarian, …"), can
    // only narrow the answer or break the call.
    raw.push(...descriptionValue(param.description), ...formatValue(schema), ...nameValues(def, param, type));
    raw.push(...placeholder(def, param, schema, type, depth));
  }
  const typed: ValueCandidate[] = [];
  for (const candidate of raw) {
    const value = coerce(candidate.value, type);
    if (value !== undefined) typed.push({ ...candidate, value });
  }
  return rankCandidates(typed);
}

/** Candidate values of every parameter of a tool, best first (for display and tests). */
export function parameterCandidates(def: ToolDefinition, context: FillContext = {}): Map<string, ValueCandidate[]> {
  const outputs = context.outputs ?? [];
  return new Map(def.parameters.map((p) => [p.name, valueCandidates(def, p, outputs)]));
}

/** The last resort for a required parameter: a value of the right type that says nothing. */
function placeholder(def: ToolDefinition, param: ToolParameter, schema: Schema, type: ValueType | undefined, depth: number): ValueCandidate[] {
  const minimum = typeof schema["minimum"] === "number" ? schema["minimum"] : undefined;
  const maximum = typeof schema["maximum"] === "number" ? schema["maximum"] : undefined;
  const number = minimum ?? (maximum !== undefined && maximum < 1 ? maximum : 1);
  const value = (() => {
    switch (type) {
      case "integer":
      case "number":
        return number;
      case "boolean":
        return false;
      case "array": {
        const item = valueCandidates(def, { name: param.name, in: param.in, required: true, schema: effectiveSchema(schema["items"]) }, [], depth + 1)[0];
        return item === undefined ? [] : [item.value];
      }
      case "object":
        return objectValue(def, schema, depth);
      case "string":
        return isIdLike(param.name) ? "1" : "test";
      case undefined:
        return isIdLike(param.name) ? 1 : "test";
    }
  })();
  return value === undefined ? [] : [{ value, source: "placeholder", score: 0.1 }];
}

/** A body object: its required properties (and documented optional ones), each by the same rules. */
function objectValue(def: ToolDefinition, schema: Schema, depth: number): Record<string, unknown> | undefined {
  if (depth >= MAX_VALUE_DEPTH) return {};
  const properties = isSchema(schema["properties"]) ? schema["properties"] : {};
  const required = new Set(Array.isArray(schema["required"]) ? schema["required"].filter((r): r is string => typeof r === "string") : []);
  const out: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(properties)) {
    const param: ToolParameter = { name, in: "body", required: required.has(name), schema: effectiveSchema(child) };
    const best = valueCandidates(def, param, [], depth + 1)[0];
    if (best !== undefined) Object.defineProperty(out, name, { value: best.value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
