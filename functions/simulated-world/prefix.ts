/** Checks a mount prefix: `/name` or `/a/b`, no trailing slash, not the control path. */
export function checkPrefix(prefix: string): string {
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(prefix)) {
    throw new TypeError(`mount prefix must look like "/name" or "/a/b" (got ${JSON.stringify(prefix)})`);
  }
  if (prefix === "/__world" || prefix.startsWith("/__world/")) {
    throw new TypeError("mount prefix /__world is reserved for the control endpoint");
  }
  return prefix;
}
