import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";
import { API_PROXY_PREFIX } from "./api-proxy";
import { API_REFERENCE_POLICY, pageSecurityHeaders } from "./content-security";
import { ApiReferencePage } from "./views/api-reference";

/**
 * How the reference is set up. The first server is the service itself, so "Try it" and every
 * copied request (curl, fetch, …) carry `Authorization: Bearer <key>` from the page's
 * authentication field; the console session is the second choice. Nothing of Scalar's own
 * services is used: no hosted fonts, agent, request proxy, developer toolbar or hosted client.
 */
export function apiReferenceConfiguration(origin: string): Record<string, unknown> {
  return {
    url: "/openapi.json",
    servers: [
      { url: origin, description: "This service: send your tenant API key (Authentication, Bearer)" },
      { url: `${origin}${API_PROXY_PREFIX}`, description: "Through your console session (sign in at /console first)" },
    ],
    authentication: { preferredSecurityScheme: "tenantKey" },
    withDefaultFonts: false,
    agent: { disabled: true },
    showDeveloperTools: "never",
    hideClientButton: true,
    telemetry: false,
  };
}

/**
 * The interactive API reference at /docs (Scalar), rendered from /openapi.json. The page is made
 * here; its scripts (/docs/scalar.js, /docs/api-reference.js) are static assets
 * (scripts/build-console.mjs).
 */
export function registerApiDocs(app: OpenAPIHono<AppEnv>): void {
  app.get("/docs", pageSecurityHeaders(API_REFERENCE_POLICY), (c) =>
    c.html(<ApiReferencePage configuration={apiReferenceConfiguration(new URL(c.req.url).origin)} />),
  );
}
