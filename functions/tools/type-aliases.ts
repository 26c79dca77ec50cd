/** JSON Schema type names, and the loose spellings real tool documentation uses for them. */
export type JsonTypeName = "string" | "integer" | "number" | "boolean" | "array" | "object" | "null";

export const JSON_TYPE_ALIASES: Readonly<Record<string, JsonTypeName>> = {
  string: "string",
  str: "string",
  text: "string",
  integer: "integer",
  int: "integer",
  long: "integer",
  number: "number",
  float: "number",
  double: "number",
  boolean: "boolean",
  bool: "boolean",
  array: "array",
  list: "array",
  object: "object",
  dict: "object",
  null: "null",
};
