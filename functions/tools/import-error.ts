/** How a tool import fails: the error every importer (OpenAPI, list, background import) throws. */

export type ToolImportErrorCode =
  | "unparseable"
  | "not_openapi"
  | "no_operations"
  | "broken_ref"
  | "no_server_url"
  | "duplicate_name"
  | "invalid_option"
  | "invalid_list";

/** An import the user has to fix; `message` is meant for them, `issues` lists every problem. */
export class ToolImportError extends Error {
  override readonly name = "ToolImportError";
  readonly code: ToolImportErrorCode;
  readonly issues: string[];

  constructor(code: ToolImportErrorCode, message: string, issues: string[] = []) {
    super(message);
    this.code = code;
    this.issues = issues;
  }
}
