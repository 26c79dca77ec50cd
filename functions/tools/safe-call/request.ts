import type { ToolDefinition } from "../definition";
import { credentialValueProblem } from "../../tenants/credential-values";
import type { InjectedCredential } from "./types";

/**
 * Turns a definition plus validated argument values into a concrete HTTP request.
 *
 * Wire formats (the definition has no OpenAPI `style`/`explode`, so one convention is fixed here):
 * - path: scalars as text, arrays comma-joined, objects as JSON; always percent-encoded as one
 *   segment, so a value can never add `/`, `?`, `#` or a `.`/`..` segment.
 * - query: arrays repeat the name (`?id=1&id=2`), objects are sent as JSON text.
 * - header: arrays comma-joined, objects as JSON.
 * - body: the body parameters as one JSON object, or form fields for
 *   `application/x-www-form-urlencoded` / `multipart/form-data` (arrays repeat, objects as JSON).
 */

export interface PreparedRequest {
  method: string;
  url: URL;
  headers: Headers;
  body?: string | FormData;
  /** Header carrying the credential, dropped if a redirect leaves the original origin. */
  credentialHeader?: string;
}

export type BuildResult =
  | { ok: true; request: PreparedRequest }
  | { ok: false; kind: "invalid_arguments" | "invalid_definition"; argument?: string; message: string };

/** Headers the runtime owns; a tool argument must not set them. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "expect",
  "proxy-authorization",
  "proxy-connection",
]);

/** Builds the request for `def` from already validated `values`, injecting the credential. */
export function buildRequest(def: ToolDefinition, values: Record<string, unknown>, credential: InjectedCredential | undefined): BuildResult {
  const placement = credentialPlacement(credential);
  if (typeof placement === "string") return { ok: false, kind: "invalid_definition", message: placement };

  const url = buildUrl(def, values);
  if (!url.ok) return url;

  for (const param of def.parameters.filter((p) => p.in === "query")) {
    const value = values[param.name];
    if (value === undefined || value === null) continue;
    if (placement?.in === "query" && placement.name === param.name) return collision(param.name);
    for (const item of wireStrings(value)) url.url.searchParams.append(param.name, item);
  }

  const body = buildBody(def, values);
  if (!body.ok) return body;

  const headers = new Headers();
  if (body.contentType !== undefined) headers.set("Content-Type", body.contentType);
  for (const param of def.parameters.filter((p) => p.in === "header")) {
    const value = values[param.name];
    if (value === undefined || value === null) continue;
    const lower = param.name.toLowerCase();
    if (placement?.in === "header" && placement.name.toLowerCase() === lower) return collision(param.name);
    if (RESERVED_HEADERS.has(lower) || (lower === "content-type" && body.body !== undefined)) {
      return {
        ok: false,
        kind: "invalid_arguments",
        argument: param.name,
        message: `header "${param.name}" is set by the runtime and cannot be passed as an argument`,
      };
    }
    const text = wireStrings(value).join(",");
    if (/[\r\n\0]/.test(text)) {
      return {
        ok: false,
        kind: "invalid_arguments",
        argument: param.name,
        message: `argument "${param.name}" is a header value and must not contain line breaks or NUL`,
      };
    }
    try {
      headers.set(param.name, text);
    } catch {
      return { ok: false, kind: "invalid_definition", argument: param.name, message: `"${param.name}" is not a valid HTTP header name` };
    }
  }

  if (credential !== undefined && placement !== undefined) {
    const injected = inject(url.url, headers, credential, placement);
    if (injected !== null) return { ok: false, kind: "invalid_definition", message: injected };
  }

  return {
    ok: true,
    request: {
      method: def.method,
      url: url.url,
      headers,
      ...(body.body !== undefined ? { body: body.body } : {}),
      ...(placement?.in === "header" ? { credentialHeader: placement.name } : {}),
    },
  };
}

type Placement = { in: "header" | "query"; name: string };

/**
 * Puts a credential on a request another module built (an MCP client's): the same placement
 * rules as tool calls. Returns the header that carries it (dropped on cross-origin redirects).
 */
export function applyCredential(
  url: URL,
  headers: Headers,
  credential: InjectedCredential,
): { ok: true; credentialHeader?: string } | { ok: false; message: string } {
  const placement = credentialPlacement(credential);
  if (typeof placement === "string") return { ok: false, message: placement };
  if (placement === undefined) return { ok: true };
  const injected = inject(url, headers, credential, placement);
  if (injected !== null) return { ok: false, message: injected };
  return placement.in === "header" ? { ok: true, credentialHeader: placement.name } : { ok: true };
}

/** Where the credential goes, or a message when it cannot be placed. */
function credentialPlacement(credential: InjectedCredential | undefined): Placement | undefined | string {
  if (credential === undefined) return undefined;
  if (credential.scheme === "bearer") return { in: "header", name: "Authorization" };
  if (credential.name === undefined || credential.name === "") {
    return "the tool's apiKey credential has no header or query parameter name";
  }
  return { in: credential.in, name: credential.name };
}

function inject(url: URL, headers: Headers, credential: InjectedCredential, placement: Placement): string | null {
  if (placement.in === "query") {
    url.searchParams.set(placement.name, credential.value);
    return null;
  }
  const value = credential.scheme === "bearer" ? `Bearer ${credential.value}` : credential.value;
  // Checked before the runtime sees it: workerd prints a warning quoting an invalid header value.
  if (credentialValueProblem(credential.value, "header") !== undefined) {
    return `the credential cannot be sent in header "${placement.name}" (not visible ASCII; store it again)`;
  }
  try {
    headers.set(placement.name, value);
    return null;
  } catch {
    // Never echo the value: the message ends up in results and logs.
    return `the credential cannot be sent in header "${placement.name}" (invalid header name or value)`;
  }
}

function collision(name: string): BuildResult {
  return { ok: false, kind: "invalid_arguments", argument: name, message: `argument "${name}" would replace the tool's credential, which the runtime injects` };
}

type UrlResult = { ok: true; url: URL } | { ok: false; kind: "invalid_arguments" | "invalid_definition"; argument?: string; message: string };

/** serverUrl (which may carry a base path like `/3`) + the path template with parameters filled in. */
function buildUrl(def: ToolDefinition, values: Record<string, unknown>): UrlResult {
  let base: URL;
  try {
    base = new URL(def.serverUrl);
  } catch {
    return { ok: false, kind: "invalid_definition", message: `serverUrl "${def.serverUrl}" is not an absolute URL` };
  }
  const pathParams = new Set(def.parameters.filter((p) => p.in === "path").map((p) => p.name));
  const templateSegments = def.path.split("/");
  const segments: string[] = [];
  for (const template of templateSegments) {
    let segment = "";
    let last = 0;
    let firstName = "";
    for (const match of template.matchAll(/\{([^{}]+)\}/g)) {
      const name = match[1] ?? "";
      if (firstName === "") firstName = name;
      if (!pathParams.has(name)) {
        return { ok: false, kind: "invalid_definition", message: `path ${def.path} uses {${name}} but the tool has no path parameter "${name}"` };
      }
      const encoded = encodePathValue(name, values[name]);
      if (!encoded.ok) return encoded;
      segment += template.slice(last, match.index) + encoded.text;
      last = match.index + match[0].length;
    }
    segment += template.slice(last);
    // `.` and `..` are dot segments to the URL parser (even as %2e), which would climb out of the
    // intended path; a value may only produce them by filling a whole segment.
    if (segment !== template && /^(?:\.|%2e){1,2}$/i.test(segment)) {
      return { ok: false, kind: "invalid_arguments", argument: firstName, message: `path argument "${firstName}" cannot make the path segment "." or ".."` };
    }
    segments.push(segment);
  }
  const basePath = base.pathname.replace(/\/+$/, "");
  let url: URL;
  try {
    url = new URL(`${base.protocol}//${base.host}${basePath}${segments.join("/")}${base.search}`);
  } catch {
    return { ok: false, kind: "invalid_definition", message: `serverUrl + path do not form a valid URL` };
  }
  url.hash = "";
  // Belt and braces: whatever the template held, the request stays under serverUrl.
  if (url.origin !== base.origin || !url.pathname.startsWith(basePath)) {
    return { ok: false, kind: "invalid_arguments", message: `the path arguments would leave ${def.serverUrl}` };
  }
  return { ok: true, url };
}

function encodePathValue(
  name: string,
  value: unknown,
): { ok: true; text: string } | { ok: false; kind: "invalid_arguments"; argument: string; message: string } {
  const text = Array.isArray(value) ? value.map(scalarText).join(",") : scalarText(value);
  if (text === "") {
    return { ok: false, kind: "invalid_arguments", argument: name, message: `path argument "${name}" must not be empty` };
  }
  try {
    return { ok: true, text: encodeURIComponent(text) };
  } catch {
    return { ok: false, kind: "invalid_arguments", argument: name, message: `path argument "${name}" is not valid Unicode text` };
  }
}

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A value as the list of strings it becomes on the wire; arrays repeat, null items are dropped. */
function wireStrings(value: unknown): string[] {
  const items = Array.isArray(value) ? value : [value];
  return items.filter((item) => item !== null && item !== undefined).map(scalarText);
}

type BodyResult = { ok: true; body?: string | FormData; contentType?: string } | { ok: false; kind: "invalid_definition"; message: string };

function buildBody(def: ToolDefinition, values: Record<string, unknown>): BodyResult {
  const fields = def.parameters.filter((p) => p.in === "body" && values[p.name] !== undefined);
  if (fields.length === 0) return { ok: true };
  if (def.method === "GET" || def.method === "HEAD") {
    return { ok: false, kind: "invalid_definition", message: `${def.method} requests cannot carry body parameters` };
  }
  const object: Record<string, unknown> = {};
  for (const p of fields) object[p.name] = values[p.name];

  const declared = def.bodyContentType;
  const media = (declared ?? "application/json").split(";")[0]?.trim().toLowerCase() ?? "";
  if (media === "application/json" || media.endsWith("+json")) {
    return { ok: true, body: JSON.stringify(object), contentType: declared ?? "application/json" };
  }
  if (media === "application/x-www-form-urlencoded") {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(object)) {
      for (const item of formStrings(value)) form.append(name, item);
    }
    return { ok: true, body: form.toString(), contentType: "application/x-www-form-urlencoded" };
  }
  if (media === "multipart/form-data") {
    const form = new FormData();
    for (const [name, value] of Object.entries(object)) {
      for (const item of formStrings(value)) form.append(name, item);
    }
    // No Content-Type: fetch sets it with the generated boundary.
    return { ok: true, body: form };
  }
  return {
    ok: false,
    kind: "invalid_definition",
    message: `request body media type "${declared ?? ""}" is not supported (JSON, form-urlencoded and multipart only)`,
  };
}

/** Form fields have no null; send it as an empty value so the field is still present. */
function formStrings(value: unknown): string[] {
  return value === null ? [""] : wireStrings(value);
}
