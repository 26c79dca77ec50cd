import type { AuthRequirement } from "./definition";
import { asArray, dig, type DocumentContext } from "./openapi-document";
import { isAbsoluteHttpUrl } from "./openapi-servers";
import { isRecord, type Json } from "./schema-copier";

/** An operation's auth: the first of its (or the document's) security requirements that a tool can carry. */

export function authFor(context: DocumentContext, operation: Json): AuthRequirement | undefined {
  // An operation's own `security` (even an empty list) replaces the document's.
  const requirements = Array.isArray(operation.security) ? operation.security : asArray(context.security);
  for (const alternative of requirements) {
    if (!isRecord(alternative)) continue;
    const schemeNames = Object.keys(alternative);
    for (const schemeName of schemeNames) {
      const auth = toAuth(context.securitySchemes[schemeName], alternative[schemeName]);
      if (auth !== undefined) {
        if (schemeNames.length > 1) {
          context.warnings.add(`Security requirement ${schemeNames.join(" + ")} needs several credentials; only "${schemeName}" is used.`);
        }
        return auth;
      }
      context.warnings.add(
        `Security scheme "${schemeName}" (${describeScheme(context.securitySchemes[schemeName])}) is not supported; operations using it are imported without auth.`,
      );
    }
  }
  return undefined;
}

function toAuth(scheme: unknown, requiredScopes: unknown): AuthRequirement | undefined {
  if (!isRecord(scheme)) return undefined;
  if (scheme.type === "oauth2" || scheme.type === "openIdConnect") {
    const scopes = asArray(requiredScopes)
      .filter((s): s is string => typeof s === "string" && s.length <= 500)
      .slice(0, 200);
    const tokenUrl = scheme.type === "oauth2" ? dig(scheme, ["flows", "clientCredentials", "tokenUrl"]) : undefined;
    return {
      scheme: "oauth2",
      in: "header",
      ...(scopes.length > 0 ? { scopes } : {}),
      ...(typeof tokenUrl === "string" && isAbsoluteHttpUrl(tokenUrl) ? { tokenUrl } : {}),
    };
  }
  if (scheme.type === "apiKey" && (scheme.in === "header" || scheme.in === "query") && typeof scheme.name === "string" && scheme.name !== "") {
    return { scheme: "apiKey", in: scheme.in, name: scheme.name };
  }
  if (scheme.type === "http" && typeof scheme.scheme === "string" && scheme.scheme.toLowerCase() === "bearer") {
    return { scheme: "bearer", in: "header" };
  }
  return undefined;
}

function describeScheme(scheme: unknown): string {
  if (!isRecord(scheme)) return "undefined";
  const parts = [scheme.type, scheme.scheme, scheme.in].filter((p): p is string => typeof p === "string");
  return parts.join(" ") || "unknown type";
}
