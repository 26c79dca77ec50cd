import type { ToolDefinition } from "../../tools/definition";
import { actionWords } from "./action-words";
import { adjacentCompounds, splitWords } from "./analyze";
import { responseWords } from "./response-words";

/**
 * The searchable text of one tool, one string per indexed field. Plain data: it is what the
 * registry hands to the index, and it can be stored or sent as JSON.
 */
export interface ToolDoc {
  /** Tool name; the document id in the index, and itself searched (split into words). */
  name: string;
  /** `METHOD /path` with `{placeholders}` dropped: the placeholder's name repeats a segment's meaning. */
  operation: string;
  summary: string;
  description: string;
  /** Parameter names, space-separated. */
  parameters: string;
  /** Parameter descriptions, one after another. */
  parameterDocs: string;
  /** Tags, space-separated. */
  tags: string;
  /** Everyday verbs of what the tool does (read, create, update, delete); see action-words.ts. */
  action: string;
  /** Queries the tool is known to answer: probing's example task, Play2Prompt demonstrations. */
  examples: string;
  /** What the tool returns: its response's field names and short categorical values (see response-words.ts). */
  outputs: string;
  /**
   * What the other operations of the same API do (their summaries, else names): a task about an
   * API usually needs several of its operations and describes the API as a whole, so each
   * operation is also found by the words of the others.
   */
  siblings: string;
  /**
   * Adjacent word pairs of the tool's name, path and summary written together ("movie credits" →
   * "moviecredits", analyze.ts): a task whose words stand side by side as in the tool's title
   * matches once more than one that has them apart (a bigram bonus, no positions stored).
   */
  phrases: string;
  /**
   * The values a tool's parameters name: enum values, defaults and examples ("celsius",
   * "fahrenheit"; "hourly"): a request that names one of them ("in celsius") names the tool.
   */
  values: string;
  /**
   * The title of the tool's API (OpenAPI `info.title`, an MCP server's title): a request that names
   * the service ("on the movie database") finds its operations. The same on every operation of an
   * API, so it separates APIs, not operations.
   */
  api: string;
}

/** What a tool's own definition does not say: what use has taught about it, and its API's other operations. */
export interface ToolDocExtras {
  /** Task texts the tool answered (probe example, Play2Prompt demonstration queries). */
  queries?: readonly string[];
  /** The other operations of the tool's API (api-siblings.ts), as definitions. */
  siblings?: readonly Pick<ToolDefinition, "name" | "summary">[];
}

/** The fields of a ToolDoc that the index searches, in a fixed order (the index stores field ids). */
export const TOOL_DOC_FIELDS = [
  "name",
  "operation",
  "summary",
  "description",
  "parameters",
  "parameterDocs",
  "tags",
  "action",
  "examples",
  "outputs",
  "siblings",
  "phrases",
  "values",
  "api",
] as const;
export type ToolDocField = (typeof TOOL_DOC_FIELDS)[number];

// Long reference descriptions (markdown tables, change logs) add index size but little signal
// beyond their opening; measured on the benchmarks, see bench/retrieval-quality.ts.
export const MAX_DESCRIPTION_CHARS = 2_000;

const PLACEHOLDER = /\{[^}]*\}/g;
const MAX_EXAMPLE_CHARS = 2_000;
const MAX_SIBLING_CHARS = 2_000;
const MAX_VALUE_CHARS = 1_000;
/** Longer values are data (a sample text, a URL), not a name a request would use. */
const MAX_VALUE_LENGTH = 40;

/** Builds the searchable document of a tool definition, with what use has taught about it. */
export function toolDocument(def: ToolDefinition, extras: ToolDocExtras = {}): ToolDoc {
  return {
    name: def.name,
    operation: def.operation.replace(PLACEHOLDER, " "),
    summary: def.summary ?? "",
    description: def.description.slice(0, MAX_DESCRIPTION_CHARS),
    parameters: def.parameters.map((parameter) => parameter.name).join(" "),
    parameterDocs: def.parameters.map((parameter) => parameter.description ?? "").join("\n"),
    tags: def.tags.join(" "),
    action: actionWords(def),
    examples: (extras.queries ?? []).join("\n").slice(0, MAX_EXAMPLE_CHARS),
    outputs: responseWords(def),
    siblings: (extras.siblings ?? [])
      .map((sibling) => (sibling.summary !== undefined && sibling.summary.trim() !== "" ? sibling.summary : sibling.name))
      .join("\n")
      .slice(0, MAX_SIBLING_CHARS),
    phrases: [def.name, def.path.replace(PLACEHOLDER, " "), def.summary ?? ""].map((title) => adjacentCompounds(splitWords(title)).join(" ")).join("\n"),
    values: parameterValues(def).join(" ").slice(0, MAX_VALUE_CHARS),
    api: def.apiTitle ?? "",
  };
}

/** Short text values the parameters' schemas name: enum members (of the value or its items), defaults, examples. */
function parameterValues(def: ToolDefinition): string[] {
  const out = new Set<string>();
  const take = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) take(item);
    else if (typeof value === "string" && value.length <= MAX_VALUE_LENGTH && /[A-Za-z]/.test(value)) out.add(value);
  };
  for (const parameter of def.parameters) {
    const schema = parameter.schema;
    const items = typeof schema.items === "object" && schema.items !== null ? (schema.items as Record<string, unknown>) : {};
    for (const source of [schema, items]) {
      take(source.enum);
      take(source.default);
      take(source.example);
      take(source.examples);
    }
  }
  return [...out];
}
