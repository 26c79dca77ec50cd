// Secrets and optional settings that wrangler.toml does not declare (wrangler types cannot see
// them). Generated binding types live in worker-configuration.d.ts.
declare namespace Cloudflare {
  interface Env {
    /** Bearer token of the admin API (tenant creation). Admin routes answer 503 when unset. */
    ADMIN_TOKEN?: string;
    /** Service secret from which credential encryption keys are derived (≥ 16 chars). */
    CREDENTIALS_KEY?: string;
    /** API key of the OpenAI-compatible model endpoint. */
    MODEL_API_KEY?: string;
    /** Embeddings model name; embeddings are off when unset. */
    EMBEDDING_MODEL?: string;
    /** `true`: a model endpoint on this machine (Ollama, LM Studio, …) is allowed. Local development only. */
    MODEL_ALLOW_LOOPBACK?: string;
    /** Model call timeout in milliseconds. */
    MODEL_TIMEOUT_MS?: string;
    /** Largest accepted request body in bytes (default 8 MiB). */
    MAX_BODY_BYTES?: string;
    /** Timeout of one tool call in milliseconds (default 10000). */
    TOOL_TIMEOUT_MS?: string;
    /** `tenant` (default): one warm program isolate per tenant; `fresh`: a new isolate per attempt. */
    SANDBOX_ISOLATE?: string;
    /** Largest tool response kept, in bytes (default 1 MiB); larger ones are truncated. */
    TOOL_MAX_RESPONSE_BYTES?: string;
    /** Rate-limiting binding counting failed authentications per client address (optional). */
    AUTH_FAILURES?: RateLimit;
    /** Most tools one tenant may hold (default 20000; see functions/tools/tool-limit.ts). */
    MAX_TOOLS_PER_TENANT?: string;
    /** How often an open MCP GET stream checks the tenant's tool list for changes, in ms (default 10000). */
    MCP_LIST_CHANGED_POLL_MS?: string;
  }
}
