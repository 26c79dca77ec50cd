/** HTML of `source` with highlight.js's token spans; every piece of the source is escaped. */
export function highlight(source: string, language: "typescript" | "javascript" | "json"): string;
