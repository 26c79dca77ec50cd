/** Calls built from views: a call built from each view must validate against the full definition. */
import { Validator } from "@cfworker/json-schema";
import { sample } from "openapi-sampler";
import { compactView, requiredOnlyView } from "../../../functions/toolnet/compact-view";
import { openAiTool } from "../../../functions/toolnet/openai-tools";
import type { ToolDefinition } from "../../../functions/tools/definition";
import { validateArguments } from "../../../functions/tools/safe-call";

/** What a tools entry without `parameters` takes (rule "empty-parameters-omitted"): no arguments. */
export const NO_PARAMETERS = { type: "object", properties: {} };

/** A value a model would send for a schema it is shown (summarised enums: their first example). */
export function valueFor(schema: Record<string, unknown>): unknown {
  const example = /One of [\d,]+ values, e\.g\. ("[^"]*"|[^,]+),/.exec(String(schema.description ?? ""))?.[1];
  if (example !== undefined) return JSON.parse(example) as unknown;
  if (schema.type === "object" && typeof schema.properties === "object" && schema.properties !== null) {
    return Object.fromEntries(Object.entries(schema.properties as Record<string, Record<string, unknown>>).map(([name, sub]) => [name, valueFor(sub)]));
  }
  return sample(schema as never, { skipReadOnly: true });
}

export function callsFromViews(defs: readonly ToolDefinition[]): {
  tools: number;
  validFull: number;
  compactOk: number;
  requiredOk: number;
  namedOnlyTools: number;
  namedOnlyOk: number;
  failures: string[];
} {
  const out = { tools: defs.length, validFull: 0, compactOk: 0, requiredOk: 0, namedOnlyTools: 0, namedOnlyOk: 0, failures: [] as string[] };
  for (const def of defs) {
    const fullCall = valueFor(openAiTool(def).function.parameters ?? NO_PARAMETERS) as Record<string, unknown>;
    const checked = validateArguments(def, fullCall);
    if (!checked.ok) continue;
    out.validFull += 1;
    const view = compactView(def);
    if (view.rules.includes("optional-parameters-named-only")) {
      // The full call sets every parameter, named-only ones too (as the API reads it: query text
      // such as "10" for a number already converted): what was shown must not refuse it.
      out.namedOnlyTools += 1;
      const shown = new Validator((view.tool.function.parameters ?? NO_PARAMETERS) as never, "2020-12", false).validate(checked.values);
      if (shown.valid) out.namedOnlyOk += 1;
      else out.failures.push(`${def.name} (named-only parameters refused by the shown schema): ${JSON.stringify(shown.errors[0]).slice(0, 200)}`);
    }
    const compact = validateArguments(def, valueFor(compactView(def).tool.function.parameters ?? NO_PARAMETERS) as Record<string, unknown>);
    const required = validateArguments(def, valueFor(requiredOnlyView(def).tool.function.parameters ?? NO_PARAMETERS) as Record<string, unknown>);
    if (compact.ok) out.compactOk += 1;
    else out.failures.push(`${def.name} (compact): ${compact.message.slice(0, 200)}`);
    if (required.ok) out.requiredOk += 1;
    else out.failures.push(`${def.name} (required-only): ${required.message.slice(0, 200)}`);
  }
  return out;
}
