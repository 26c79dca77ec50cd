import { isIdentifierName } from "./identifiers";
import type { JsonRecord } from "./json";
import type { WorldOperation } from "./types";

/**
 * Problems with a request's parameters, each naming the parameter, as a real API would report
 * them: missing required query parameters, then values that break a simple type or enum.
 * Identifier path parameters are left to the identifier check (a real API answers 404 there).
 */
export function parameterProblems(operation: WorldOperation, pathParams: Readonly<Record<string, string>>, query: URLSearchParams): string[] {
  const problems: string[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.in === "query") {
      const value = query.get(parameter.name);
      if (value === null || value === "") {
        if (parameter.required) problems.push(`${parameter.name} must be provided (required query parameter).`);
        continue;
      }
      const problem = valueProblem(value, parameter.schema);
      if (problem !== undefined) problems.push(`query parameter ${parameter.name} ${problem}.`);
    } else if (parameter.in === "path" && !isIdentifierName(parameter.name)) {
      const value = pathParams[parameter.name];
      const problem = value === undefined ? undefined : valueProblem(value, parameter.schema);
      if (problem !== undefined) problems.push(`path parameter ${parameter.name} ${problem}.`);
    }
  }
  return problems;
}

function valueProblem(value: string, schema: JsonRecord): string | undefined {
  const type = schema["type"];
  if (type === "integer" && !/^-?\d+$/.test(value)) return `must be an integer (got ${JSON.stringify(value)})`;
  if (type === "number" && (value.trim() === "" || !Number.isFinite(Number(value)))) {
    return `must be a number (got ${JSON.stringify(value)})`;
  }
  if (type === "boolean" && value !== "true" && value !== "false") {
    return `must be true or false (got ${JSON.stringify(value)})`;
  }
  const allowed = schema["enum"];
  if (Array.isArray(allowed) && allowed.length > 0 && !allowed.some((option) => String(option) === value)) {
    return `must be one of ${allowed.map((option) => String(option)).join(", ")} (got ${JSON.stringify(value)})`;
  }
  return undefined;
}
