export declare const REDACTED: string;
/** Whether a query parameter or header name looks like it carries a credential. */
export declare function isSecretName(name: string): boolean;
/** A URL with credential-looking query values and any user:password@ replaced. */
export declare function redactUrl(url: string): string;
/** Headers as a plain object, credential-carrying values replaced. */
export declare function redactHeaders(headers: Headers | Record<string, string>): Record<string, string>;
/** Free text (a log line, an error message) with URLs, bearer values and known key shapes scrubbed. */
export declare function redactText(text: string): string;
