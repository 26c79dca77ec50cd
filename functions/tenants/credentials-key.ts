import { Failure } from "../common/failures";

/**
 * CREDENTIALS_KEY is the service secret every sealed secret is derived from (tool credentials,
 * tenant model keys, webhook secrets, console sessions). One rule and one error for all of them:
 * a path that needs the key and finds it missing or short refuses the same way, whatever it seals.
 */

/** Shorter secrets are refused: HKDF input this short would be guessable. */
export const MIN_CREDENTIALS_KEY_LENGTH = 16;

export const CREDENTIALS_KEY_MISSING = `Secrets cannot be sealed or opened: CREDENTIALS_KEY is not set or shorter than ${MIN_CREDENTIALS_KEY_LENGTH} characters.`;

declare const checked: unique symbol;
/** A CREDENTIALS_KEY that passed the rule; `sealSecret`/`openSecret` take nothing else. */
export type CredentialsKey = string & { readonly [checked]: true };

function isUsable(key: string | undefined): key is CredentialsKey {
  return key !== undefined && key.length >= MIN_CREDENTIALS_KEY_LENGTH;
}

/** The service's credentials key, or a `not-configured` failure when it is missing or too short. */
export function credentialsKey(env: { CREDENTIALS_KEY?: string | undefined }): CredentialsKey {
  const key = env.CREDENTIALS_KEY;
  if (!isUsable(key)) throw new Failure("not-configured", CREDENTIALS_KEY_MISSING);
  return key;
}

/** The key when it is usable, else undefined: for readers that treat "no key" as "nothing sealed" (console sessions). */
export function credentialsKeyIfSet(env: { CREDENTIALS_KEY?: string | undefined }): CredentialsKey | undefined {
  const key = env.CREDENTIALS_KEY;
  return isUsable(key) ? key : undefined;
}
