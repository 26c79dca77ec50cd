/**
 * Is an exported tool schema valid JSON Schema 2020-12? Checked with Ajv (a test-only dependency:
 * it compiles schemas with `new Function`, which workerd forbids): the schema must pass the 2020-12
 * meta-schema, and must compile (patterns are valid `u`-mode regular expressions, and so on).
 * Unknown keywords and formats are allowed, as the specification allows them.
 */
import { Ajv2020 } from "ajv/dist/2020.js";

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });

/** Undefined when valid, else a short reason. */
export function schemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== "object" || schema === null) return "not an object";
  if (!ajv.validateSchema(schema as object)) {
    const first = ajv.errors?.[0];
    return `meta-schema: ${first?.instancePath ?? ""} ${first?.message ?? "invalid"}`.trim();
  }
  try {
    ajv.compile(schema as object);
    ajv.removeSchema();
    return undefined;
  } catch (error) {
    ajv.removeSchema();
    return `compile: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
  }
}
