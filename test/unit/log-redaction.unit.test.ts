import { describe, expect, it } from "vitest";
import { REDACTED, redactHeaders, redactText, redactUrl } from "../../functions/tools/safe-call/log-redaction.mjs";
import { credentialValueProblem } from "../../functions/tenants/credential-values";

describe("5. log redaction", () => {
  it("scrubs credential query parameters from URLs, keeping the rest", () => {
    expect(redactUrl("https://api.example.com/v3/search?query=nolan&api_key=s3cr3t&page=2")).toBe(
      `https://api.example.com/v3/search?query=nolan&api_key=${REDACTED}&page=2`,
    );
    expect(redactUrl("https://user:pw@api.example.com/a?access_token=t0k&X-Api-Key=k")).toBe(
      `https://REDACTED@api.example.com/a?access_token=${REDACTED}&X-Api-Key=${REDACTED}`,
    );
    expect(redactUrl("https://api.example.com/keyboards?monkey=1")).toBe("https://api.example.com/keyboards?monkey=1");
  });

  it("scrubs wrangler request lines, error messages and key shapes", () => {
    const lines = [
      "[wrangler:info] GET /tmdb/search/person?query=x&api_key=s3cr3t-value 200 OK (3ms)",
      "TypeError: fetch to https://api.example.com/x?token=s3cr3t-value failed",
      "Invalid header value: Authorization: Bearer s3cr3t-value",
      "the key atc_acme_s3cr3tvalueABCDEFGHIJKLMNOPQRSTU was refused",
      'body {"apiKey":"s3cr3t-value","model":"m"}',
    ];
    for (const line of lines) {
      const clean = redactText(line);
      expect(clean).not.toContain("s3cr3t");
      expect(clean).toContain(REDACTED);
    }
    expect(redactText("GET /v1/tools?limit=3 200 OK")).toBe("GET /v1/tools?limit=3 200 OK");
  });

  it("scrubs credential-carrying headers", () => {
    expect(redactHeaders(new Headers({ Authorization: "Bearer x", "X-API-Key": "y", Accept: "application/json" }))).toEqual({
      authorization: REDACTED,
      "x-api-key": REDACTED,
      accept: "application/json",
    });
  });

  it("refuses credential values the runtime cannot send as a header", () => {
    expect(credentialValueProblem("abc.DEF-123_~", "bearer")).toBeUndefined();
    expect(credentialValueProblem("tok\u00e9n", "bearer")).toBeDefined();
    expect(credentialValueProblem("two words", "bearer")).toBeDefined();
    expect(credentialValueProblem("Token abc", "header")).toBeUndefined();
    expect(credentialValueProblem("abc\r\nX-Evil: 1", "header")).toBeDefined();
    expect(credentialValueProblem("caf\u00e9 ok", "query")).toBeUndefined();
    expect(credentialValueProblem("a\u0000b", "query")).toBeDefined();
  });
});
