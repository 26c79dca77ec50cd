import { z } from "zod";

/**
 * The one shape every tool has inside atc-edge, whether it came from an OpenAPI document or a
 * bare list. Everything later (calling, probing, routing, prompts) reads this shape only.
 */

/** A JSON Schema fragment (draft 2020-12 / OpenAPI 3.1 dialect); kept as plain data. */
export const JsonSchema = z.record(z.string(), z.unknown());
export type JsonSchema = z.infer<typeof JsonSchema>;

export const ParameterLocation = z.enum(["path", "query", "header", "body"]);
export type ParameterLocation = z.infer<typeof ParameterLocation>;

export const HttpMethod = z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]);
export type HttpMethod = z.infer<typeof HttpMethod>;

/** Tool names are used as typed-API identifiers in generated programs: `tools.<name>(...)`. */
export const ToolName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,99}$/, "a tool name is an identifier: letters, digits, _ (max 100)");

export const ToolParameter = z
  .object({
    name: z.string().min(1).max(200),
    in: ParameterLocation,
    required: z.boolean().default(false),
    description: z.string().max(10_000).optional(),
    /** JSON Schema of the value; `{}` means any. */
    schema: JsonSchema.default({}),
  })
  .strict();
export type ToolParameter = z.infer<typeof ToolParameter>;

/** Where a tool expects its credential; the secret itself is stored apart, encrypted. */
export const AuthRequirement = z
  .object({
    /** `oauth2`: OAuth 2 or OpenID Connect; calls send `Authorization: Bearer` with a stored or fetched token. */
    scheme: z.enum(["apiKey", "bearer", "oauth2"]),
    in: z.enum(["header", "query"]).default("header"),
    /** Header or query parameter name for apiKey; ignored for bearer and oauth2 (always Authorization). */
    name: z.string().min(1).max(200).optional(),
    /** oauth2: the scopes the operation needs, as its document lists them. */
    scopes: z.array(z.string().max(500)).max(200).optional(),
    /** oauth2: the client-credentials token URL the document gives (used when the stored credential names none). */
    tokenUrl: z.string().url().optional(),
  })
  .strict();
export type AuthRequirement = z.infer<typeof AuthRequirement>;

export const ToolDefinition = z
  .object({
    name: ToolName,
    method: HttpMethod,
    /** Base URL without trailing slash, e.g. `https://api.themoviedb.org/3`. */
    serverUrl: z.string().url(),
    /** Path template below serverUrl, e.g. `/movie/{movie_id}/credits`. */
    path: z.string().startsWith("/"),
    /** `METHOD /path` as the source document spells it; RestBench gold solutions use this. */
    operation: z.string(),
    summary: z.string().max(1_000).optional(),
    description: z.string().max(20_000).default(""),
    parameters: z.array(ToolParameter).max(200).default([]),
    /** Media type of the request body when any parameter is `in: body`. */
    bodyContentType: z.string().optional(),
    /** JSON Schema of the success response, when documented. */
    responseSchema: JsonSchema.optional(),
    /** One recorded or documented example response, when there is one. */
    responseExample: z.unknown().optional(),
    auth: AuthRequirement.optional(),
    /**
     * Set for a tool of a remote MCP server: calls go to that server's `tools/call` with this
     * tool name, `serverUrl` being its Streamable HTTP endpoint; the parameters are all `in: body`.
     */
    mcp: z
      .object({ tool: z.string().min(1).max(500) })
      .strict()
      .optional(),
    tags: z.array(z.string()).max(50).default([]),
    /**
     * The title of the API the tool belongs to, as its source names it (OpenAPI `info.title`, an MCP
     * server's title or name): a request often names the service rather than the operation ("on
     * Spotify"). Not the API's description: that changes with every release note, and a changed
     * definition is a new version of the tool (its protocol is keyed by the definition's hash).
     */
    apiTitle: z.string().min(1).max(200).optional(),
  })
  .strict();
export type ToolDefinition = z.infer<typeof ToolDefinition>;

/** A tool as stored: the definition plus its content hash and bookkeeping. */
export const StoredTool = z.object({
  definition: ToolDefinition,
  /** sha256 (hex) of the canonical JSON of `definition`; keys probed protocols. */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  source: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type StoredTool = z.infer<typeof StoredTool>;
