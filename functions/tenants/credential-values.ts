import { z } from "zod";

/**
 * What a credential value may contain, checked when it is stored (PUT), not when it is sent. A
 * header value outside visible ASCII is refused by the runtime at send time, and the runtime's
 * warning prints the value: so such a value must never be stored in the first place.
 */

/** Visible ASCII (0x21–0x7E), with inner spaces allowed ("Token abc"). */
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
/** A bearer token is one token68-like word: visible ASCII, no spaces. */
const BEARER_VALUE = /^[\x21-\x7e]+$/;
/** RFC 9110 header field names. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const CONTROL = /[\x00-\x1f\x7f]/;

/** Why a credential value cannot be sent as it would be, or undefined when it can. */
export function credentialValueProblem(value: string, placement: "bearer" | "header" | "query"): string | undefined {
  if (placement === "bearer") return BEARER_VALUE.test(value) ? undefined : "a bearer token must be visible ASCII characters without spaces";
  if (placement === "header") {
    return HEADER_VALUE.test(value) ? undefined : "a header value must be visible ASCII characters (inner spaces allowed)";
  }
  return CONTROL.test(value) ? "a query value must not contain control characters" : undefined;
}

/** The model endpoint key goes out as `Authorization: Bearer <key>`. */
export const BearerSecret = z
  .string()
  .refine((v) => credentialValueProblem(v, "bearer") === undefined, { message: "must be visible ASCII characters without spaces" });
