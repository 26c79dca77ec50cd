import type { ToolDefinition } from "../tools/definition";

/** A function tool in the shape OpenAI-compatible chat APIs take in `tools`. */
export interface OpenAiTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

const MAX_DESCRIPTION_CHARS = 1_000;

/**
 * A registered tool as an OpenAI `tools` entry, so a chatbot can pass routing's answer straight
 * to its model: one JSON-schema object whose properties are the tool's parameters.
 */
export function openAiTool(def: ToolDefinition): OpenAiTool {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const parameter of def.parameters) {
    properties[parameter.name] = {
      ...parameter.schema,
      ...(parameter.description === undefined ? {} : { description: parameter.description }),
    };
    if (parameter.required) required.push(parameter.name);
  }
  const text = (def.description || def.summary || def.operation).replace(/\s+/g, " ").trim();
  return {
    type: "function",
    function: {
      name: def.name,
      description: text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : text,
      parameters: { type: "object", properties, required, additionalProperties: false },
    },
  };
}
