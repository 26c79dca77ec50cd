/**
 * The title of an API as a tool carries it (`apiTitle`): plain text, markdown marks and HTML tags
 * dropped, whitespace collapsed, at most 200 characters; nothing when the source names no API.
 */
export function apiTitleOf(title: unknown): string | undefined {
  if (typeof title !== "string") return undefined;
  const plain = title
    .replace(/<[^>]{0,200}>/g, " ")
    .replace(/[#*_`>|]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 200)
    .trim();
  return plain === "" ? undefined : plain;
}
