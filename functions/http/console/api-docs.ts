import { Scalar } from "@scalar/hono-api-reference";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";
import scalarScript from "./generated/scalar.js.txt";

/**
 * The interactive API reference at /docs (Scalar's Hono middleware), rendered from /openapi.json.
 * Its script is served by the Worker itself (no CDN). "Try it" can go two ways: through the
 * console session (/console/api, the signed-in tenant's key is used without being shown), or
 * straight to the API with a key pasted into the page's authentication field.
 */
export function registerApiDocs(app: OpenAPIHono<AppEnv>): void {
  app.get("/docs/scalar.js", (c) => c.body(scalarScript, 200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" }));
  app.get(
    "/docs",
    Scalar((c) => {
      const origin = new URL(c.req.url).origin;
      return {
        url: "/openapi.json",
        cdn: "/docs/scalar.js",
        pageTitle: "atc-edge API reference",
        withDefaultFonts: false,
        servers: [
          { url: `${origin}/console/api`, description: "Through your console session (sign in at /console first)" },
          { url: origin, description: "Direct: send your API key (Authentication)" },
        ],
        authentication: { preferredSecurityScheme: "tenantKey" },
      };
    }),
  );
}
