import { stripTrailingSlash } from "./url-template";
/**
 * Where a listed tool is called (list-import.ts): its server URL and path, from a `url` template or
 * from `serverUrl` and `path` given apart, and the path parameters its template names.
 */

/** The fields of a list item that say where it is called. */
export type ItemLocation = { url?: string; serverUrl?: string; path?: string };

/** serverUrl + path of an item, from `url` (split at a known server prefix, else at the origin) or given apart. */
export function resolveLocation(item: ItemLocation, servers: string[], report: (issue: string) => void): { serverUrl: string; path: string } | undefined {
  if (item.url !== undefined && (item.serverUrl !== undefined || item.path !== undefined)) {
    report("url: give either url or serverUrl + path, not both");
    return undefined;
  }
  if (item.url !== undefined) {
    const url = item.url.trim();
    const parts = splitUrl(url);
    if (parts === undefined) {
      report(`url: "${preview(url)}" is not an absolute http(s) URL such as https://api.example.com/v1/items/{id}`);
      return undefined;
    }
    if (/[?#]/.test(parts.rest)) {
      report("url: must not contain a query string or fragment; list query parameters in parameters");
      return undefined;
    }
    // The longest declared server that prefixes the URL becomes the base; else the origin does.
    const server = [...servers].sort((a, b) => b.length - a.length).find((s) => url.startsWith(s) && (url.length === s.length || url[s.length] === "/"));
    if (server !== undefined) return { serverUrl: server, path: url.slice(server.length) || "/" };
    return { serverUrl: parts.origin, path: parts.rest || "/" };
  }
  if (item.serverUrl === undefined || item.path === undefined) {
    report("url: required (a full URL template), or serverUrl and path");
    return undefined;
  }
  const base = splitUrl(item.serverUrl.trim());
  if (base === undefined || /[?#{}]/.test(base.rest)) {
    report(`serverUrl: "${preview(item.serverUrl)}" is not an absolute http(s) base URL such as https://api.example.com/v1`);
    return undefined;
  }
  const path = item.path.trim().startsWith("/") ? item.path.trim() : `/${item.path.trim()}`;
  if (/[?#]/.test(path)) {
    report("path: must not contain a query string or fragment; list query parameters in parameters");
    return undefined;
  }
  return { serverUrl: stripTrailingSlash(base.origin + base.rest), path };
}

/** `https://host:port` and the rest, without parsing the rest: `new URL` would escape `{`/`}`. */
function splitUrl(url: string): { origin: string; rest: string } | undefined {
  const match = /^(https?:\/\/[^/?#{}\s]+)(\S*)$/i.exec(url);
  if (match?.[1] === undefined) return undefined;
  try {
    new URL(match[1]);
  } catch {
    return undefined;
  }
  return { origin: match[1], rest: match[2] ?? "" };
}

function preview(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
