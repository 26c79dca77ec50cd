/** Small readers of URLs and path templates shared by the OpenAPI and list importers. */

/** The names of the `{x}` placeholders of a path template. */
export function pathTemplateNames(path: string): string[] {
  return [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1] ?? "").filter((n) => n !== "");
}

/** `url` without its trailing slashes (a server URL is joined with paths that start with one). */
export function stripTrailingSlash(url: string): string {
  return url.replace(/\/+$/, "");
}
