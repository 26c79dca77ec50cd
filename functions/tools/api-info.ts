import { type ApiInfo, MAX_API_DESCRIPTION } from "./definition";

/**
 * The API's name and the opening of its description, as a tool carries them (`api`): plain text,
 * markdown marks and HTML tags dropped, whitespace collapsed, cut at a word within the limit.
 * Nothing when the source names no API (a title that is empty or not text).
 */
export function apiInfoOf(title: unknown, description: unknown): ApiInfo | undefined {
  const name = typeof title === "string" ? plainText(title).slice(0, 200) : "";
  if (name === "") return undefined;
  const about = typeof description === "string" ? opening(plainText(description)) : "";
  return about === "" ? { title: name } : { title: name, description: about };
}

function plainText(text: string): string {
  return text
    .replace(/<[^>]{0,200}>/g, " ")
    .replace(/[#*_`>|]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

function opening(text: string): string {
  if (text.length <= MAX_API_DESCRIPTION) return text;
  const cut = text.slice(0, MAX_API_DESCRIPTION + 1);
  const lastSpace = cut.lastIndexOf(" ");
  return (lastSpace > MAX_API_DESCRIPTION / 2 ? cut.slice(0, lastSpace) : cut.slice(0, MAX_API_DESCRIPTION)).trim();
}
