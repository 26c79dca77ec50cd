import { secureHeaders } from "hono/secure-headers";

type ContentSecurityPolicy = NonNullable<Exclude<Parameters<typeof secureHeaders>[0], undefined>["contentSecurityPolicy"]>;

/**
 * What a console page may load: scripts, styles, data and forms of the service's own origin only;
 * no inline script or style (scripts are static files, data rides in JSON blocks), no plugin, no
 * framing, no <base> rewriting.
 */
export const CONSOLE_POLICY: ContentSecurityPolicy = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", "blob:", "data:"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  frameAncestors: ["'none'"],
  formAction: ["'self'"],
};

/**
 * The API reference (/docs): the console's policy, but Scalar's bundle sets styles from script
 * (style elements and attributes), which a stylesheet-only policy would refuse. Scripts stay the
 * service's own files; requests ("Try it" included) go to the service's origin only.
 */
export const API_REFERENCE_POLICY: ContentSecurityPolicy = {
  ...CONSOLE_POLICY,
  styleSrc: ["'self'", "'unsafe-inline'"],
  fontSrc: ["'self'", "data:"],
};

/** Hono's secure headers (nosniff, frame and opener isolation, …) with the given policy. */
export function pageSecurityHeaders(policy: ContentSecurityPolicy) {
  return secureHeaders({ contentSecurityPolicy: policy, referrerPolicy: "same-origin" });
}
