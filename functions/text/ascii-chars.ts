/**
 * ASCII character classes by char code, for the text fast paths (word splitting, token-count
 * edges) that scan ASCII text instead of running Unicode regular expressions over it.
 */

export function isAsciiDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

export function isAsciiUpper(code: number): boolean {
  return code >= 0x41 && code <= 0x5a;
}

export function isAsciiLower(code: number): boolean {
  return code >= 0x61 && code <= 0x7a;
}

/** ASCII characters in `\s`: tab, line feed, vertical tab, form feed, carriage return, space. */
export function isAsciiSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}
