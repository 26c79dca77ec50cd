import { stripTrailingSlash } from "./url-template";
import { importFailure } from "./import-error";
import type { DocumentContext } from "./openapi-document";
import { isRecord, type Json } from "./schema-copier";

/** An operation's server URL: the caller's override, else the operation's, path's or document's `servers`, made absolute. */

export function serverUrlFor(context: DocumentContext, pathItem: Json, operation: Json): string {
  if (context.serverOverride !== undefined) return context.serverOverride;
  // Operation and path-level `servers` override the document's, as in the spec.
  const servers = [operation.servers, pathItem.servers, context.servers].find((s) => Array.isArray(s) && s.length > 0);
  const first: unknown = Array.isArray(servers) ? servers[0] : undefined;
  if (!isRecord(first) || typeof first.url !== "string") {
    throw importFailure(
      "no_server_url",
      "The document declares no server URL; pass serverUrl with the API's base URL (for example https://api.example.com/v1).",
    );
  }
  const variables = isRecord(first.variables) ? first.variables : {};
  const missing: string[] = [];
  const url = first.url.replace(/\{([^{}]+)\}/g, (_, variable: string) => {
    const spec = variables[variable];
    if (isRecord(spec) && (typeof spec.default === "string" || typeof spec.default === "number")) return String(spec.default);
    missing.push(variable);
    return `{${variable}}`;
  });
  if (missing.length > 0) {
    throw importFailure("no_server_url", `The server URL "${first.url}" uses variables without a default (${missing.join(", ")}); pass serverUrl.`);
  }
  return stripTrailingSlash(absoluteServerUrl(url, context));
}

/**
 * `url` as an absolute http(s) URL. Relative ones are relative to where the document is served
 * (OpenAPI 3; Swagger 2.0 without `host` means the same): known for an import by URL, not for a
 * posted document, which gets a problem saying how to give it.
 */
function absoluteServerUrl(url: string, context: DocumentContext): string {
  // Swagger 2.0 with `host` but no `schemes` means "the scheme the document was read with"; unknown for a posted document, and https is the norm.
  if (url.startsWith("//") && context.documentUrl === undefined) {
    context.warnings.add(`The server URL "${url}" has no scheme; https is assumed (pass serverUrl if the API is served otherwise).`);
    return `https:${url}`;
  }
  if (isAbsoluteHttpUrl(url)) return url;
  const resolved = context.documentUrl === undefined ? undefined : resolvedAgainst(url, context.documentUrl);
  if (resolved !== undefined) {
    context.warnings.add(
      `The server URL "${url}" is relative; resolved against the document's URL to ${stripTrailingSlash(resolved)} (pass serverUrl if the API is served elsewhere).`,
    );
    return resolved;
  }
  throw importFailure(
    "no_server_url",
    context.documentUrl === undefined
      ? `The document's server URL "${url}" is not an absolute http(s) URL: it is relative to where the document is served, which a posted document does not say. Import it by URL ({"format":"openapi","url":"https://…/openapi.json"}) or pass serverUrl with the full base URL.`
      : `The document's server URL "${url}" is not an http(s) URL, even resolved against ${context.documentUrl}; pass serverUrl with the full base URL.`,
  );
}

function resolvedAgainst(url: string, documentUrl: string): string | undefined {
  try {
    const resolved = new URL(url, documentUrl);
    // The base's query and fragment are no part of a server URL.
    resolved.search = "";
    resolved.hash = "";
    return isAbsoluteHttpUrl(resolved.href) ? resolved.href : undefined;
  } catch {
    return undefined;
  }
}

export function checkServerOverride(serverUrl: string): string {
  if (!isAbsoluteHttpUrl(serverUrl)) {
    throw importFailure("invalid_option", `serverUrl "${serverUrl}" must be an absolute http(s) URL such as https://api.example.com/v1.`);
  }
  return stripTrailingSlash(serverUrl);
}

export function isAbsoluteHttpUrl(url: string): boolean {
  if (!/^https?:\/\/[^/?#\s]+/i.test(url)) return false;
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
}
