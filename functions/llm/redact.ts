/** Removes every occurrence of a secret from text meant for logs, errors or the API. */
export function redactSecret(text: string, secret: string | undefined): string {
  // Very short "secrets" would shred ordinary text; real keys are never that short.
  if (!secret || secret.length < 4) return text;
  return text.split(secret).join("***");
}
