import { z } from "zod";
import type { ProtocolOverrides } from "../chain/typed-api";
import { JsonSchema, ToolName, ToolParameter, type ToolDefinition } from "../tools/definition";
import { responseSchemaToJsonSchema, ResponseSchema, schemaTransform } from "./schema-transform";

/**
 * Protocol documenting (§4.1): a probed instance ((q, C), r) becomes the documented protocol
 * d = ((q, C), s, t) — the tool, the general schema s of its response (Algorithm 2), and the
 * query/program pair as a usage demonstration. Stored per tool and definition hash, so a changed
 * tool is probed again and an unchanged one never is.
 */

export const ProbeHow = z.enum(["direct", "helper_chain", "model"]);
/** How the instance was found: a zero-token call, with helper tools' outputs, or by the model alone. */
export type ProbeHow = z.infer<typeof ProbeHow>;

/** One scalar seen in the probed response, at its concrete path (`results[0].id`). */
export const SampleValue = z.object({ path: z.string().max(500), value: z.union([z.string(), z.number(), z.boolean()]) }).strict();
export type SampleValue = z.infer<typeof SampleValue>;

export const ProbeUsage = z
  .object({
    toolCalls: z.number().int().min(0),
    modelCalls: z.number().int().min(0),
    promptTokens: z.number().int().min(0),
    completionTokens: z.number().int().min(0),
    totalTokens: z.number().int().min(0),
  })
  .strict();
export type ProbeUsage = z.infer<typeof ProbeUsage>;

export const ProbeExample = z
  .object({
    /** The question the instance answers (the paper's q). */
    query: z.string(),
    /** The program body that answers it (the paper's C), in the typed tools API. */
    program: z.string(),
    /** The arguments the probed tool was called with; helper chains reuse them. */
    arguments: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type ProbeExample = z.infer<typeof ProbeExample>;

export const ProbedProtocol = z
  .object({
    name: ToolName,
    /** Content hash of the definition that was probed; a different hash means probe again. */
    definitionHash: z.string().min(1).max(200),
    /** The registered description, or one the model wrote for a tool that had none. */
    description: z.string().max(20_000).optional(),
    descriptionSource: z.enum(["registered", "model"]).optional(),
    parameters: z.array(ToolParameter),
    /** Algorithm 2 output: the compact schema in the authors' notation. */
    responseSchema: ResponseSchema,
    /** The same schema as JSON Schema, for the typed API. */
    jsonSchema: JsonSchema,
    example: ProbeExample,
    /** Tools called before this one to obtain its arguments (chain of probing). */
    helpers: z.array(ToolName).default([]),
    /** A capped sample of scalars from the response: what this tool can feed to others (data flow). */
    samples: z.array(SampleValue).max(500).default([]),
    how: ProbeHow,
    probedAt: z.string(),
    usage: ProbeUsage,
  })
  .strict();
export type ProbedProtocol = z.infer<typeof ProbedProtocol>;

/** The protocol as typed-API overrides, for `renderToolsApi` / `renderToolSignature`. */
export function protocolOverrides(protocol: ProbedProtocol): ProtocolOverrides {
  return {
    // A registered description stays the registry's business; only a model-written one replaces it.
    ...(protocol.descriptionSource === "model" && protocol.description !== undefined ? { description: protocol.description } : {}),
    responseSchema: protocol.jsonSchema,
    example: { query: protocol.example.query, program: protocol.example.program },
  };
}

function typeName(schema: Record<string, unknown>): string {
  const type = schema["type"];
  if (typeof type === "string" && type !== "") return type;
  if (Array.isArray(type)) return type.filter((t) => typeof t === "string").join(" | ") || "any";
  if (Array.isArray(schema["enum"])) return "enum";
  return "any";
}

function parameterLine(p: ToolDefinition["parameters"][number]): string {
  const description = (p.description ?? "").replace(/\s+/g, " ").trim();
  const enumValues = Array.isArray(p.schema["enum"]) ? ` One of: ${p.schema["enum"].map((v) => JSON.stringify(v)).join(", ")}.` : "";
  return `- ${p.name}: ${description}${enumValues} (type: ${typeName(p.schema)}${p.required ? ", required" : ""})`.replace(":  (", ": (");
}

/** The paper's documented-protocol text (appendix A.6): name, url, request type, description, parameters, result specification. */
export function renderPaperProtocol(def: ToolDefinition, protocol: ProbedProtocol): string {
  const description = protocol.description ?? (def.description || def.summary || "");
  const plain = def.parameters.filter((p) => p.in !== "body");
  const body = def.parameters.filter((p) => p.in === "body");
  const lines = [
    `API name: ${def.name}`,
    "### API url",
    `${def.serverUrl}${def.path}`,
    "### Request type",
    def.method,
    "### Description",
    description,
    "### Parameter",
    ...(plain.length === 0 ? ["This API does not take parameters."] : plain.map(parameterLine)),
  ];
  if (/\{[^}]+\}/.test(def.path)) lines.push("The '{variable}' in the url path should also be replaced with actual value.");
  // The authors print the schema as `json.dumps(schema, indent=4)`.
  lines.push("### Execution result specification", JSON.stringify(protocol.responseSchema, null, 4), "### Request body");
  if (body.length === 0) lines.push('"This API do not need the request body when calling."');
  else lines.push(`(${def.bodyContentType ?? "application/json"})`, ...body.map(parameterLine));
  lines.push("### Example", `Query: ${protocol.example.query}`, "```ts", protocol.example.program, "```");
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------
// Usage examples for instances found without the model: the paper's (q, C) pair, synthesised.

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const end = flat.search(/[.!?](\s|$)/);
  return (end === -1 ? flat : flat.slice(0, end)).slice(0, 200).trim();
}

function objectLiteral(entries: [string, string][]): string {
  if (entries.length === 0) return "{}";
  return `{ ${entries.map(([key, code]) => `${IDENTIFIER.test(key) ? key : JSON.stringify(key)}: ${code}`).join(", ")} }`;
}

function argumentsText(args: Record<string, unknown>): string {
  const parts = Object.entries(args).map(([k, v]) => `${k} ${JSON.stringify(v)}`);
  return parts.length === 0 ? "no arguments" : parts.join(", ");
}

/** The tool's purpose as a sentence: its description, else its summary, else its operation. */
function purpose(def: ToolDefinition): string {
  return firstSentence(def.description || def.summary || "") || `Call ${def.operation}`;
}

/** Example for a direct probe: a query built from the description, and `return await tools.x({...})`. */
export function directExample(def: ToolDefinition, args: Record<string, unknown>): ProbeExample {
  const literal = objectLiteral(Object.entries(args).map(([k, v]) => [k, JSON.stringify(v)]));
  return {
    query: `${purpose(def)} (with ${argumentsText(args)}).`,
    program: `// ${def.name}\nreturn await tools.${def.name}(${literal});`,
    arguments: args,
  };
}

/** A value taken from a helper tool's result: which argument, which tool, where in its response. */
export interface ChainBinding {
  parameter: string;
  tool: string;
  /** Concrete path in the helper's response, e.g. `results[0].id` or `[0].place_id`. */
  path: string;
}

function variableFor(tool: string, used: Set<string>): string {
  const base = `${tool.replace(/^get_?/i, "").replace(/^./, (c) => c.toLowerCase()) || "result"}Result`;
  let name = IDENTIFIER.test(base) ? base : "helperResult";
  for (let i = 2; used.has(name); i++) name = `${base}${i}`;
  used.add(name);
  return name;
}

/** Example for a helper chain found by data flow: call each helper as it was probed, then the tool with their values. */
export function chainExample(
  def: ToolDefinition,
  args: Record<string, unknown>,
  bindings: readonly ChainBinding[],
  helpers: ReadonlyMap<string, { definition?: ToolDefinition; protocol: ProbedProtocol }>,
): ProbeExample {
  const used = new Set<string>();
  const variables = new Map<string, string>();
  const lines: string[] = [];
  for (const binding of bindings) {
    if (variables.has(binding.tool)) continue;
    const variable = variableFor(binding.tool, used);
    variables.set(binding.tool, variable);
    const helperArgs = helpers.get(binding.tool)?.protocol.example.arguments ?? {};
    lines.push(
      `// ${binding.tool}`,
      `const ${variable} = await tools.${binding.tool}(${objectLiteral(Object.entries(helperArgs).map(([k, v]) => [k, JSON.stringify(v)]))});`,
    );
  }
  const bound = new Map(bindings.map((b) => [b.parameter, b]));
  const literal = objectLiteral(
    Object.entries(args).map(([k, v]) => {
      const binding = bound.get(k);
      const variable = binding === undefined ? undefined : variables.get(binding.tool);
      if (binding === undefined || variable === undefined) return [k, JSON.stringify(v)];
      return [k, binding.path === "" ? variable : `${variable}${binding.path.startsWith("[") ? "" : "."}${binding.path}`];
    }),
  );
  lines.push(`// ${def.name}`, `return await tools.${def.name}(${literal});`);
  const sources = [...variables.keys()].map((tool) => {
    const helper = helpers.get(tool);
    const what = helper?.definition === undefined ? "" : ` (${purpose(helper.definition).replace(/^./, (c) => c.toLowerCase())})`;
    return `${tool}${what}`;
  });
  const fed = bindings.map((b) => b.parameter).join(", ");
  return {
    query: `${purpose(def)}, for the ${fed} that ${sources.join(" and ")} returns.`,
    program: lines.join("\n"),
    arguments: args,
  };
}

export interface DocumentInput {
  definition: ToolDefinition;
  definitionHash: string;
  response: unknown;
  example: ProbeExample;
  how: ProbeHow;
  helpers: readonly string[];
  usage: ProbeUsage;
  probedAt: string;
  samples: SampleValue[];
  /** A description the model wrote, used when the tool has none. */
  modelDescription?: string | undefined;
}

/** Protocol documenting: the instance ((q, C), r) and the tool t become d = ((q, C), s, t). */
export function documentProtocol(input: DocumentInput): ProbedProtocol {
  const def = input.definition;
  const registered = (def.description || def.summary || "").trim();
  const responseSchema = schemaTransform(input.response);
  const description =
    registered !== ""
      ? { description: registered, descriptionSource: "registered" as const }
      : input.modelDescription !== undefined && input.modelDescription.trim() !== ""
        ? { description: input.modelDescription.trim().slice(0, 2_000), descriptionSource: "model" as const }
        : {};
  return {
    name: def.name,
    definitionHash: input.definitionHash,
    ...description,
    parameters: def.parameters,
    responseSchema,
    jsonSchema: responseSchemaToJsonSchema(responseSchema),
    example: input.example,
    helpers: [...input.helpers],
    samples: input.samples,
    how: input.how,
    probedAt: input.probedAt,
    usage: input.usage,
  };
}
