import type { ToolDefinition } from "../tools/definition";

/** A function tool in the shape OpenAI-compatible chat APIs take in `tools`. */
export interface OpenAiTool {
  type: "function";
  /**
   * `parameters` may be left out: chat completions then take a function without arguments;
   * `description` too (compact views leave out one that only restates the name).
   */
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

const MAX_DESCRIPTION_CHARS = 1_000;

/**
 * One `tools` entry: a function whose parameters are one JSON-schema object. `closed` adds
 * `additionalProperties: false`; compact views leave it out (the validator rejects unknown
 * arguments anyway, and it costs tokens in every answer).
 */
export function functionTool(name: string, description: string, properties: Record<string, unknown>, required: string[], closed = false): OpenAiTool {
  return {
    type: "function",
    function: {
      name,
      description,
      parameters: { type: "object", properties, required, ...(closed ? { additionalProperties: false } : {}) },
    },
  };
}

/**
 * A registered tool's full definition as an OpenAI `tools` entry (what routing answered before
 * compact views; benchmarks compare against it).
 */
export function openAiTool(def: ToolDefinition): OpenAiTool {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const parameter of def.parameters) {
    // Two parameters may share a name in different places (a path variable and a query parameter);
    // a call fills both from the one argument, so the schema names it once, as first declared.
    if (Object.hasOwn(properties, parameter.name)) {
      if (parameter.required && !required.includes(parameter.name)) required.push(parameter.name);
      continue;
    }
    properties[parameter.name] = {
      ...parameter.schema,
      ...(parameter.description === undefined ? {} : { description: parameter.description }),
    };
    if (parameter.required) required.push(parameter.name);
  }
  const text = (def.description || def.summary || def.operation).replace(/\s+/g, " ").trim();
  return functionTool(def.name, text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : text, properties, required, true);
}
