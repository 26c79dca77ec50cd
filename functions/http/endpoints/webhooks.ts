import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { sha256Hex, TENANT_ID_PATTERN } from "../../tenants/api-keys";
import { openSecret, sealSecret } from "../../tenants/credential-crypto";
import { credentialsKey } from "../../tenants/credentials-key";
import { importChangedTools, WebhookBody } from "../../jobs/webhook-import";
import { generateWebhookSecret, verifyWebhook } from "../../webhooks/standard-webhooks";
import type { AppEnv } from "../app-env";
import { tenantStub } from "../../tenant-api/tenant-api";
import { jsonBody, problems, tenantSecurity } from "../openapi-common";
import { Failure } from "../../common/failures";
import { authFailure, blockedAddress, clientAddress } from "../middleware/auth-failures";
import { tenantExists } from "../tenant-directory";

const DAY_SECONDS = 86_400;
/** Retry-After for a delivery whose original is still being handled. */
const DELIVERY_RETRY_SECONDS = 2;

const Accepted = z
  .object({ jobId: z.string().nullable(), duplicate: z.boolean(), changed: z.array(z.string()), unchanged: z.number().int() })
  .openapi("WebhookAccepted");

/** Webhook secrets (on the tenant sub-app, under /v1). */
export function registerWebhookSecretEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/webhooks/secrets",
      tags: ["webhooks"],
      summary: "Create (rotate) the webhook secret; shown once",
      description: "Earlier secrets keep verifying for `graceSeconds` (default one day) so senders can switch without dropped deliveries.",
      security: tenantSecurity,
      request: {
        body: jsonBody(
          z
            .object({
              graceSeconds: z
                .number()
                .int()
                .min(0)
                .max(7 * DAY_SECONDS)
                .default(DAY_SECONDS),
            })
            .strict(),
        ),
      },
      responses: {
        201: {
          description: "The new secret",
          content: { "application/json": { schema: z.object({ id: z.string(), secret: z.string(), previousValidUntil: z.string() }) } },
        },
        ...problems(400, 401, 503),
      },
    }),
    async (c) => {
      const { graceSeconds } = c.req.valid("json");
      const secret = generateWebhookSecret();
      const id = `whs_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
      const sealed = await sealSecret(credentialsKey(c.env), c.var.tenantId, id, secret);
      const previousValidUntil = Date.now() + graceSeconds * 1_000;
      await c.var.tenant.webhooks.addSecret({ id, ...sealed, createdAt: new Date().toISOString() }, previousValidUntil);
      return c.json({ id, secret, previousValidUntil: new Date(previousValidUntil).toISOString() }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/webhooks/secrets",
      tags: ["webhooks"],
      summary: "Webhook secrets (ids and validity only)",
      security: tenantSecurity,
      responses: {
        200: {
          description: "Secrets",
          content: {
            "application/json": {
              schema: z.object({ secrets: z.array(z.object({ id: z.string(), createdAt: z.string(), expiresAt: z.number().nullable() })) }),
            },
          },
        },
        ...problems(401),
      },
    }),
    async (c) => c.json({ secrets: await c.var.tenant.webhooks.listSecrets() }, 200),
  );
}

/** The signed webhook that reports changed tools (CI, catalogues), on the signed-webhook sub-app under /v1/webhooks: no API key. */
export function registerSignedWebhookEndpoints(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/{tenant}/tools",
      tags: ["webhooks"],
      summary: "Signed webhook: tools changed (Standard Webhooks signature)",
      description:
        'Headers `webhook-id`, `webhook-timestamp`, `webhook-signature` (`v1,` + base64 HMAC-SHA256 over `id.timestamp.body`). The body carries an OpenAPI document or a list of tools; the registry is updated and one probe job is started for what changed. The same `webhook-id` starts at most one job. A redelivery is answered by the state of its original when the service gets to it: 409 `request-in-progress` with `Retry-After` while the original is still being handled; 202 `duplicate: true` once it has succeeded (with the original\'s job id); processed again after the original failed. A redelivery sent during the original may be held until the original has finished (locally one workerd thread serves every request, and a large import holds it) and then gets 202 `duplicate: true`. A sender should treat 409 as "retry after `Retry-After`" and 202 as delivered; never 2xx for an original that failed or has not finished. A `webhook-id` used again with a different (validly signed) body is refused 409 `conflict` and nothing is imported: a new message needs a new id.',
      // The body is validated after the signature is, so it is not declared for the validator here.
      request: { params: z.object({ tenant: z.string().regex(TENANT_ID_PATTERN) }) },
      responses: { 202: { description: "Accepted", content: { "application/json": { schema: Accepted } } }, ...problems(400, 401, 409, 422, 503) },
    }),
    async (c) => {
      const { tenant: tenantId } = c.req.valid("param");
      // The exact bytes as received are what was signed: read them before anything parses.
      const raw = await c.req.text();
      // An unknown tenant is never addressed (that would create its storage); it verifies against
      // no secrets, so it fails exactly as a wrong signature does.
      const exists = await tenantExists(c.env, tenantId);
      const tenant = tenantStub(c.env, tenantId);
      const sealedSecrets = exists ? await tenant.webhooks.validSecrets(Date.now()) : [];
      const key = credentialsKey(c.env);
      const secrets = await Promise.all(sealedSecrets.map((s) => openSecret(key, tenantId, s.id, s)));
      const verification = await verifyWebhook({ headers: c.req.raw.headers, body: raw, secrets, nowSeconds: Math.floor(Date.now() / 1000) });
      // One answer for every failure, whether the tenant exists or not: nothing to probe for.
      if (!verification.ok) {
        const address = clientAddress(c.req.raw.headers);
        const rejected = new Failure("unauthorized", `Webhook signature rejected: ${verification.message}`);
        throw blockedAddress(address) ?? (await authFailure(c.env, address, rejected));
      }
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        throw new Failure("malformed-json", "The webhook body is not valid JSON.");
      }
      const parsed = WebhookBody.safeParse(json);
      if (!parsed.success) {
        throw new Failure(
          "invalid-request",
          "The webhook body does not match the schema.",
          parsed.error.issues.map((i) => ({ path: i.path.map(String).join(".") || "(root)", message: i.message })),
        );
      }
      const body = parsed.data;
      const claim = await tenant.webhooks.claimDelivery(verification.id, await sha256Hex(raw));
      if (claim.state === "other-body") {
        throw new Failure("conflict", `The webhook-id ${verification.id} was already delivered with another body; a new message needs a new webhook-id.`);
      }
      // 2xx for a duplicate only once the original worked; while it runs, retry later.
      if (claim.state === "succeeded") return c.json({ jobId: claim.jobId, duplicate: true, changed: [], unchanged: 0 }, 202);
      if (claim.state === "in-flight") {
        throw new Failure("request-in-progress", "This delivery is still being processed; retry it later.", undefined, DELIVERY_RETRY_SECONDS);
      }
      try {
        const outcome = await importChangedTools(c.env, tenantId, tenant, body, verification.id);
        await tenant.webhooks.completeDelivery(verification.id, outcome.jobId, "accepted");
        return c.json({ ...outcome, duplicate: false }, 202);
      } catch (error) {
        await tenant.webhooks.failDelivery(verification.id);
        throw error;
      }
    },
  );
}
