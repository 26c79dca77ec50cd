/**
 * SQL layout of a tenant's Durable Object. Append new migrations; never edit a shipped one.
 * The whole layout is described in docs/storage.md.
 */
export const TENANT_MIGRATIONS = [
  `CREATE TABLE IF NOT EXISTS tenant_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE IF NOT EXISTS tenant_api_keys (
     id TEXT PRIMARY KEY, prefix TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE, label TEXT,
     created_at TEXT NOT NULL, revoked_at TEXT);
   CREATE TABLE IF NOT EXISTS tenant_tools (
     name TEXT PRIMARY KEY, definition TEXT NOT NULL, hash TEXT NOT NULL, source TEXT NOT NULL,
     created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
   CREATE TABLE IF NOT EXISTS tenant_credentials (
     id TEXT PRIMARY KEY, scope_kind TEXT NOT NULL, scope_value TEXT NOT NULL, scheme TEXT NOT NULL,
     location TEXT NOT NULL, param_name TEXT, ciphertext TEXT NOT NULL, iv TEXT NOT NULL,
     hint TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE (scope_kind, scope_value));`,
  `CREATE TABLE IF NOT EXISTS graph_trajectories (id TEXT PRIMARY KEY, tools TEXT NOT NULL);
   CREATE TABLE IF NOT EXISTS graph_scores (tool TEXT PRIMARY KEY, score REAL NOT NULL);`,
  `CREATE TABLE IF NOT EXISTS runs (
     id TEXT PRIMARY KEY, created_at TEXT NOT NULL, status TEXT NOT NULL, task TEXT NOT NULL, record TEXT NOT NULL);
   CREATE TABLE IF NOT EXISTS evaluation_queue (
     id TEXT PRIMARY KEY, payload TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, due_at INTEGER NOT NULL,
     last_error TEXT, done_at TEXT, scores TEXT);`,
  `CREATE TABLE IF NOT EXISTS jobs (
     id TEXT PRIMARY KEY, kind TEXT NOT NULL, status TEXT NOT NULL, dedupe_key TEXT UNIQUE,
     request TEXT NOT NULL, progress TEXT NOT NULL DEFAULT '{}', result TEXT, usage TEXT NOT NULL DEFAULT '{}',
     attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL, last_error TEXT,
     created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
   CREATE TABLE IF NOT EXISTS job_items (
     job_id TEXT NOT NULL, tool TEXT NOT NULL, status TEXT NOT NULL, detail TEXT NOT NULL DEFAULT '{}',
     updated_at TEXT NOT NULL, PRIMARY KEY (job_id, tool));
   CREATE TABLE IF NOT EXISTS protocol_versions (
     tool TEXT NOT NULL, version INTEGER NOT NULL, hash TEXT NOT NULL, kv_key TEXT NOT NULL, source TEXT NOT NULL,
     score REAL, job_id TEXT, created_at TEXT NOT NULL, PRIMARY KEY (tool, version));
   CREATE TABLE IF NOT EXISTS protocol_current (
     tool TEXT PRIMARY KEY, version INTEGER NOT NULL, pinned INTEGER NOT NULL DEFAULT 0);
   CREATE TABLE IF NOT EXISTS webhook_secrets (
     id TEXT PRIMARY KEY, ciphertext TEXT NOT NULL, iv TEXT NOT NULL, created_at TEXT NOT NULL, expires_at INTEGER);
   CREATE TABLE IF NOT EXISTS webhook_deliveries (
     id TEXT PRIMARY KEY, received_at TEXT NOT NULL, job_id TEXT, outcome TEXT);`,
  `CREATE TABLE IF NOT EXISTS tool_embeddings (tool TEXT PRIMARY KEY, hash TEXT NOT NULL, model TEXT NOT NULL, vector TEXT NOT NULL);`,
  `CREATE TABLE IF NOT EXISTS tool_failures (tool TEXT PRIMARY KEY, count INTEGER NOT NULL, last_at TEXT NOT NULL);`,
  // The description a protocol version gives the tool, when it replaces the registered one (routing shows it).
  `ALTER TABLE protocol_versions ADD COLUMN description TEXT;`,
  // Compact tool views and their token counts, per definition hash and shown description (routing budgets).
  `CREATE TABLE IF NOT EXISTS tool_views (
     tool TEXT PRIMARY KEY, hash TEXT NOT NULL, description TEXT, compact TEXT NOT NULL, compact_tokens INTEGER NOT NULL,
     required_only TEXT NOT NULL, required_only_tokens INTEGER NOT NULL);`,
  // Routing learns from use: a trajectory's task text (first-step learning) and what a protocol
  // taught about its tool (example queries for its retrieval document, output fields for data flow).
  `ALTER TABLE graph_trajectories ADD COLUMN task TEXT;
   ALTER TABLE protocol_versions ADD COLUMN routing_hints TEXT;`,
  // Idempotency-Key records (kept 24 h): the request's fingerprint and the response to replay.
  `CREATE TABLE IF NOT EXISTS idempotency_keys (
     key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, state TEXT NOT NULL, status INTEGER, content_type TEXT,
     body TEXT, created_at INTEGER NOT NULL);
   CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys (created_at);`,
  // Derived state stored so a restarted object loads instead of rebuilding (routing index and
  // graph edges; stored-blobs.ts): a value in ≤ 1 MiB chunks, with its format and what it was built from.
  `CREATE TABLE IF NOT EXISTS stored_blobs (name TEXT PRIMARY KEY, format TEXT NOT NULL, chunks INTEGER NOT NULL, bytes INTEGER NOT NULL, stamp TEXT NOT NULL);
   CREATE TABLE IF NOT EXISTS stored_blob_chunks (name TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (name, seq));`,
  // Stored tool views: which version of the compaction rules made them (older rows are recomputed
  // on first use) and the tokens the run prompt spends on the tool (run candidate-set budgets).
  `ALTER TABLE tool_views ADD COLUMN rules_version INTEGER NOT NULL DEFAULT 1;
   ALTER TABLE tool_views ADD COLUMN run_tokens INTEGER;`,
  // The tokens a run prompt spends on a tool while a protocol version is current (its response
  // schema and example shown too), counted when the version is recorded (run candidate-set budgets).
  `ALTER TABLE protocol_versions ADD COLUMN run_tokens INTEGER;`,
  // Each run's model tokens beside its record, indexed by start time: admitting a run reads only
  // today's runs from the index, instead of scanning every run ever stored and parsing its record.
  `ALTER TABLE runs ADD COLUMN total_tokens INTEGER;
   UPDATE runs SET total_tokens = json_extract(record, '$.usage.totalTokens');
   CREATE INDEX IF NOT EXISTS runs_created_tokens ON runs (created_at, total_tokens);`,
  // Jobs by last update: a run's or job's admission totals today's job tokens from today's jobs
  // alone, instead of scanning every job ever stored.
  `CREATE INDEX IF NOT EXISTS jobs_updated ON jobs (updated_at);`,
  // Access tokens fetched for OAuth 2 client-credentials credentials, sealed, reused until expiry.
  `CREATE TABLE IF NOT EXISTS tenant_oauth_tokens (
     credential_id TEXT PRIMARY KEY, ciphertext TEXT NOT NULL, iv TEXT NOT NULL, expires_at INTEGER NOT NULL);`,
  // Implicit learning (tenant-observed.ts): conversations as observed (their open trajectory as JSON,
  // the tools scored explicitly in them), the trajectories learned from them (task text until the
  // retention period ends, then NULL: only its terms stay), the running implicit score per tool,
  // and per-day counts for the learning curve.
  `CREATE TABLE IF NOT EXISTS observed_sessions (
     id TEXT PRIMARY KEY, opened_at INTEGER NOT NULL, last_at INTEGER NOT NULL, closed_at INTEGER,
     state TEXT NOT NULL, explicit_tools TEXT NOT NULL DEFAULT '[]', learned INTEGER NOT NULL DEFAULT 0);
   CREATE INDEX IF NOT EXISTS observed_sessions_open ON observed_sessions (closed_at, last_at);
   CREATE TABLE IF NOT EXISTS observed_trajectories (
     id TEXT PRIMARY KEY, session_id TEXT NOT NULL, learned_at INTEGER NOT NULL, task TEXT, terms TEXT NOT NULL,
     tools TEXT NOT NULL, outcomes TEXT NOT NULL, implicit TEXT NOT NULL);
   CREATE INDEX IF NOT EXISTS observed_trajectories_session ON observed_trajectories (session_id);
   CREATE INDEX IF NOT EXISTS observed_trajectories_kept ON observed_trajectories (learned_at) WHERE task IS NOT NULL;
   CREATE TABLE IF NOT EXISTS observed_implicit (tool TEXT PRIMARY KEY, total INTEGER NOT NULL);
   CREATE TABLE IF NOT EXISTS observed_days (
     day TEXT PRIMARY KEY, searches INTEGER NOT NULL DEFAULT 0, offered_hits INTEGER NOT NULL DEFAULT 0,
     trajectories INTEGER NOT NULL DEFAULT 0, sessions INTEGER NOT NULL DEFAULT 0);`,
  // Background imports of big documents (tenant-imports.ts): the raw document as uploaded, in
  // chunks; its units (top-level fields, path items, components) as JSON text, cut once; and each
  // committed batch (last path item done, tool names, report), written with the batch's tools.
  `CREATE TABLE IF NOT EXISTS import_uploads (
     upload_id TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (upload_id, seq));
   CREATE TABLE IF NOT EXISTS import_units (
     job_id TEXT NOT NULL, pointer TEXT NOT NULL, kind TEXT NOT NULL, seq INTEGER NOT NULL, unit_key TEXT NOT NULL,
     operations INTEGER NOT NULL DEFAULT 0, text TEXT NOT NULL, PRIMARY KEY (job_id, pointer));
   CREATE INDEX IF NOT EXISTS import_units_order ON import_units (job_id, kind, seq);
   CREATE TABLE IF NOT EXISTS import_batches (
     job_id TEXT NOT NULL, batch INTEGER NOT NULL, last_seq INTEGER NOT NULL, operations INTEGER NOT NULL,
     names TEXT NOT NULL, report TEXT NOT NULL, PRIMARY KEY (job_id, batch));`,
  // A tool's one-line description as route answers list it, stored with its views (same
  // definition and shown description), so an answer parses no definition; NULL in older rows,
  // whose views are then made again on first use.
  `ALTER TABLE tool_views ADD COLUMN line TEXT;`,
  // The SHA-256 of a webhook delivery's body: a reused `webhook-id` with another body is refused,
  // not taken for a redelivery (NULL in older rows: any body matches them).
  `ALTER TABLE webhook_deliveries ADD COLUMN body_hash TEXT;`,
  // Each tool's learned field (learned-words.ts): the index terms of the requests that chose it,
  // weighed, kept per source of evidence (an observed conversation, a posted trajectory), so that
  // deleting the source takes its words away again. Terms only: no request text.
  `CREATE TABLE IF NOT EXISTS learned_terms (
     source TEXT NOT NULL, tool TEXT NOT NULL, term TEXT NOT NULL, weight REAL NOT NULL, learned_at INTEGER NOT NULL,
     PRIMARY KEY (source, tool, term));
   CREATE INDEX IF NOT EXISTS learned_terms_order ON learned_terms (learned_at);`,
  // What the starting-tools fallback reads of each tool (toolnet/route-fallback.ts), written with
  // the tool, so the fallback parses no definition; tools written before it are added on first use.
  `CREATE TABLE IF NOT EXISTS tool_starts (name TEXT PRIMARY KEY, needs_id INTEGER NOT NULL, words TEXT NOT NULL);`,
  // Tools by server URL (registry-tool-reads.ts apiSiblingsOf): a route reads the same-API siblings
  // of the tools it ranks, not every tool's server (which parsed every definition on a cold route).
  `CREATE INDEX IF NOT EXISTS tenant_tools_server ON tenant_tools (json_extract(definition, '$.serverUrl'), name);`,
  // A count of the changes to the set of tool names, bumped by SQLite itself in the transaction of
  // every insert or delete of a tool row, whoever writes it: stored routing values carry the count
  // they were made at (routing-snapshots.ts), so a load trusts them without reading every name.
  `CREATE TABLE IF NOT EXISTS tool_names_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
   INSERT OR IGNORE INTO tool_names_version (id, version) VALUES (1, 0);
   CREATE TRIGGER IF NOT EXISTS tool_names_added AFTER INSERT ON tenant_tools BEGIN UPDATE tool_names_version SET version = version + 1; END;
   CREATE TRIGGER IF NOT EXISTS tool_names_removed AFTER DELETE ON tenant_tools BEGIN UPDATE tool_names_version SET version = version + 1; END;`,
  // Tools by source, and the tool count kept by SQLite beside the rows (bumped in the transaction of
  // every insert or delete, whoever writes): a write checks the tool limit and finds another
  // source's names without reading every row (each row's source lies past its definition, so a
  // whole-table read of names and sources read every definition: 65 % of a Graph import).
  `CREATE INDEX IF NOT EXISTS tenant_tools_source ON tenant_tools (source, name);
   CREATE TABLE IF NOT EXISTS tool_count (id INTEGER PRIMARY KEY CHECK (id = 1), tools INTEGER NOT NULL);
   INSERT OR IGNORE INTO tool_count (id, tools) SELECT 1, COUNT(*) FROM tenant_tools;
   CREATE TRIGGER IF NOT EXISTS tool_count_added AFTER INSERT ON tenant_tools BEGIN UPDATE tool_count SET tools = tools + 1 WHERE id = 1; END;
   CREATE TRIGGER IF NOT EXISTS tool_count_removed AFTER DELETE ON tenant_tools BEGIN UPDATE tool_count SET tools = tools - 1 WHERE id = 1; END;`,
  // The trajectories that carry a task (graph-rows.ts TASKS_IN_ORDER): the task memory reads only
  // those at load, not every trajectory (a tenant of 10,000 tools stores tens of thousands without one).
  `CREATE INDEX IF NOT EXISTS graph_trajectories_with_task ON graph_trajectories (id) WHERE task IS NOT NULL;`,
  // The characters of every stored definition, kept beside the tool count by the same triggers: a
  // route decides whether recomputing data flow (which streams every definition) is cheap enough
  // to do itself from what it would read, not from the tool count (500 of Microsoft Graph's
  // definitions are ≈ 12 MB of JSON, 500 of StableToolBench's ≈ 0.3 MB).
  `ALTER TABLE tool_count ADD COLUMN definition_chars INTEGER NOT NULL DEFAULT 0;
   UPDATE tool_count SET definition_chars = (SELECT COALESCE(SUM(length(definition)), 0) FROM tenant_tools) WHERE id = 1;
   DROP TRIGGER IF EXISTS tool_count_added;
   DROP TRIGGER IF EXISTS tool_count_removed;
   CREATE TRIGGER tool_count_added AFTER INSERT ON tenant_tools BEGIN
     UPDATE tool_count SET tools = tools + 1, definition_chars = definition_chars + length(NEW.definition) WHERE id = 1; END;
   CREATE TRIGGER tool_count_removed AFTER DELETE ON tenant_tools BEGIN
     UPDATE tool_count SET tools = tools - 1, definition_chars = definition_chars - length(OLD.definition) WHERE id = 1; END;
   CREATE TRIGGER tool_definition_resized AFTER UPDATE OF definition ON tenant_tools BEGIN
     UPDATE tool_count SET definition_chars = definition_chars + length(NEW.definition) - length(OLD.definition) WHERE id = 1; END;`,
] as const;
