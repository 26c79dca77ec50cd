import { Failure, isFailure, type FailureCode } from "../common/failures";

/**
 * How a tool import fails, whichever importer (OpenAPI, list, a big document's batch): a `Failure`
 * of one of these codes (an invalid document, 422), its message meant for the user and each
 * problem it found listed as a field error under the code.
 */
export type ToolImportCode = Extract<
  FailureCode,
  "unparseable" | "not_openapi" | "no_operations" | "broken_ref" | "no_server_url" | "duplicate_name" | "invalid_option" | "invalid_list"
>;

const TOOL_IMPORT_CODES: readonly ToolImportCode[] = [
  "unparseable",
  "not_openapi",
  "no_operations",
  "broken_ref",
  "no_server_url",
  "duplicate_name",
  "invalid_option",
  "invalid_list",
];

/** An import the user has to fix; `issues` lists every problem. */
export function importFailure(code: ToolImportCode, message: string, issues: readonly string[] = []): Failure {
  return Failure.of(code, message, issues.length === 0 ? {} : { errors: issues.map((issue) => ({ path: code, message: issue })) });
}

/** Whether `error` is how an import failed. */
export function isImportFailure(error: unknown): error is Failure & { code: ToolImportCode } {
  return isFailure(error, ...TOOL_IMPORT_CODES);
}

/** The problems an import failure lists. */
export function importIssues(failure: Failure): string[] {
  return failure.errors?.map((error) => error.message) ?? [];
}
