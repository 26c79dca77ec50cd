/**
 * Import warnings grouped by kind, for the directory bench: each warning is free text meant for a
 * person, so the kind is read from its wording. `skipsOperation` marks the kinds that drop a whole
 * operation (the bench's "skipped by reason").
 */

const KINDS: { kind: string; pattern: RegExp; skipsOperation?: boolean }[] = [
  { kind: "unsupported method", pattern: /operations are not supported; skipped/, skipsOperation: true },
  { kind: "path without leading /", pattern: /does not start with "\/"; skipped/, skipsOperation: true },
  { kind: "does not fit the tool format", pattern: /skipped, it does not fit the tool format/, skipsOperation: true },
  { kind: "unresolvable reference", pattern: /^Reference ".*" cannot be resolved/ },
  { kind: "$ref that is not a reference", pattern: /"\$ref" is not a reference string/ },
  { kind: "Swagger 2.0 converted", pattern: /^Swagger 2\.0 document/ },
  { kind: "server URL without scheme (https assumed)", pattern: /^The server URL ".*" has no scheme; https is assumed/ },
  { kind: "duplicate operationId renamed", pattern: /operationId ".*" is also used by/ },
  { kind: "duplicate name renamed", pattern: /is already taken; named/ },
  { kind: "unsupported parameter location", pattern: /parameter ".*" is not supported; left out/ },
  { kind: "path parameter not in path", pattern: /does not appear in the path; left out/ },
  { kind: "undeclared path parameter added", pattern: /is not declared; added as a required string/ },
  { kind: "unsupported security scheme", pattern: /^Security scheme .* is not supported/ },
  { kind: "several credentials needed", pattern: /needs several credentials/ },
  { kind: "recursive schema cut", pattern: /recursive schema .* was cut/ },
  { kind: "references nested too deep not expanded", pattern: /schemas nested more than \d+ references deep are not expanded/ },
  { kind: "schema too large or deep", pattern: /too large or too deep|self-containing value/ },
  { kind: "text shortened", pattern: /characters; shortened/ },
  { kind: "tags cut", pattern: /only the first \d+ tags/ },
  { kind: "required not a boolean", pattern: /required is .*not a boolean/ },
  { kind: "body as one parameter", pattern: /the body is one parameter instead/ },
  { kind: "schema keyword: numeric string read as number", pattern: /: schema keyword .* read as the number|: schema keyword .* read as numbers/ },
  { kind: "schema keyword: dropped", pattern: /: schema keyword .* dropped/ },
  { kind: "schema keyword: other repair", pattern: /: schema keyword / },
];

/** The kind of one warning ("other" when no pattern knows it). */
export function warningKind(warning: string): { kind: string; skipsOperation: boolean } {
  const found = KINDS.find((k) => k.pattern.test(warning));
  return found === undefined ? { kind: "other", skipsOperation: false } : { kind: found.kind, skipsOperation: found.skipsOperation === true };
}
