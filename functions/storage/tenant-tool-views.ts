import { signatureTokens } from "../chain/tool-cost";
import { TOOL_VIEWS_VERSION, toolViews, type ToolViews } from "../toolnet/answer-budget";
import type { OpenAiTool } from "../toolnet/openai-tools";
import type { ToolDefinition } from "../tools/definition";
import type { TenantEvents } from "./tenant-events";
import { run } from "./sql";
import { CURRENT_TOOL_HASHES } from "./tenant-registry";
import { shortDescription } from "../toolnet/short-description";
import { ViewsMemory } from "./views-memory";

/**
 * A tool's stored views (VIEWS's columns in order): rows are read as arrays, since workerd
 * builds an object with named columns for each row several times slower.
 */
type ViewRow = [
  tool: string,
  hash: string,
  description: string | null,
  rulesVersion: number | null,
  compact: string | null,
  compactTokens: number | null,
  requiredOnly: string | null,
  requiredOnlyTokens: number | null,
  runTokens: number | null,
  line: string | null,
];

const VIEWS = "SELECT tool, hash, description, rules_version, compact, compact_tokens, required_only, required_only_tokens, run_tokens, line FROM tool_views";

/**
 * Registered tools among a JSON array of names, each with its current definition hash and its
 * stored views (VIEWS's columns; null when it has none): what an answer's unread tools need, in
 * one read instead of one for the views and one for the hashes.
 */
const VIEWS_WITH_CURRENT_HASHES = `SELECT t.hash, t.name, v.hash, v.description, v.rules_version, v.compact, v.compact_tokens, v.required_only,
  v.required_only_tokens, v.run_tokens, v.line FROM (${CURRENT_TOOL_HASHES}) t LEFT JOIN tool_views v ON v.tool = t.name
  WHERE t.name IN (SELECT value FROM json_each(?))`;

/**
 * The next stored views after a tool name, in name order (VIEWS_WITH_CURRENT_HASHES's columns):
 * one slice of reading a catalog's views into memory in the background.
 */
const VIEWS_AFTER = `SELECT t.hash, t.name, v.hash, v.description, v.rules_version, v.compact, v.compact_tokens, v.required_only,
  v.required_only_tokens, v.run_tokens, v.line FROM (${CURRENT_TOOL_HASHES}) t JOIN tool_views v ON v.tool = t.name
  WHERE t.name > ? ORDER BY t.name LIMIT ?`;

/** Rows one background slice reads: ≈ 1–2 ms of the object's time at 10,000 tools here, so a request arriving meanwhile waits little. */
export const VIEWS_WARM_SLICE = 250;

/**
 * Milliseconds between background slices: requests (and, where the Worker shares the object's
 * isolate, as in local development, the Worker's answers) get the thread between them; a chain of
 * slices with no gap held a 20,000-tool tenant's first answer back by ≈ 0.25 s.
 */
export const VIEWS_WARM_GAP_MS = 10;

/** Runs a task after `delayMs`, once the current request has been answered (the object's timer). */
export type RunLater = (task: () => void, delayMs: number) => void;

/** How much of a catalog's stored views is in memory. */
export interface ViewsWarmth {
  /** Tools whose views are remembered. */
  remembered: number;
  /** Characters they hold (views-memory.ts bounds it). */
  chars: number;
  /** Every stored view has been read once (or memory is full): no background slice is left. */
  complete: boolean;
}

/** A VIEWS_WITH_CURRENT_HASHES row: the current hash, then the tool's stored views (`hash` null when none are stored). */
type CurrentViewRow = [current: string, tool: string, hash: string | null, ...rest: ViewRow extends [string, string, ...infer Rest] ? Rest : never];

/**
 * A tool an answer may show, with `description` (undefined: the registered one) in place of the
 * registered text; `shown()` is its definition so shown, asked for only when its views must be computed.
 */
export interface ShownTool {
  tool: string;
  description: string | undefined;
  shown: () => ToolDefinition | undefined;
}

/** The current definition hash of one of the registry's tools (the registry owns them; several are read with their views, VIEWS_WITH_CURRENT_HASHES). */
export interface ToolHashes {
  hashOf(tool: string): string | undefined;
}

/**
 * What a tool costs where it is shown, stored with it: its routing views and their token counts,
 * and `runTokens`, the tokens of the typed signature a run's program-writing prompt shows for it
 * (issue 9's tool cost: typed-api.ts, counted by chain/tool-cost.ts). The two prompts show the
 * tool differently (a `tools` JSON entry; a TypeScript signature with its response type), so each
 * budget spends the count of what its own prompt shows, both computed once, from the same
 * definition and shown description.
 */
export interface StoredToolViews extends ToolViews {
  runTokens: number;
  /** The one-line description of the tool's entry in a route answer's candidates list (short-description.ts). */
  line: string;
}

/** Views and costs of a tool as shown (a probed or optimised description already in place). */
export function toolCosts(shown: ToolDefinition): StoredToolViews {
  return { ...toolViews(shown), runTokens: signatureTokens(shown), line: shortDescription(shown) };
}

/**
 * A tenant's compact tool views and their token counts, stored with the tools (`tool_views`):
 * computed when a tool is registered or changed, so routing and runs never recompute them. A row
 * belongs to one definition hash, one shown description (a probed or optimised one replaces the
 * registered text) and one version of the compaction rules; a tool stored before views existed,
 * whose description changed since, or whose views older rules made, gets them computed and stored
 * on first use.
 */
export class TenantToolViews {
  readonly #sql: SqlStorage;
  /** Views already read this object lifetime, by tool, within a bound; dropped whenever the tool changes. */
  readonly #memory: ViewsMemory;
  readonly #hashes: ToolHashes;
  readonly #runLater: RunLater;
  /** The last tool name the background reading has passed (null: not started; undefined: done). */
  #warmedThrough: string | null | undefined = null;
  #warmScheduled = false;

  /**
   * `hashes`: the registry's current definition hashes; views follow the registry's changes
   * (`events`). `runLater` runs the background reading's slices.
   */
  constructor(sql: SqlStorage, hashes: ToolHashes, events: TenantEvents, runLater: RunLater, memory = new ViewsMemory()) {
    this.#sql = sql;
    this.#hashes = hashes;
    this.#runLater = runLater;
    this.#memory = memory;
    events.onToolsChanged(({ upserted, removed }) => {
      this.forget(removed, true);
      for (const { definition, hash } of upserted) this.store(definition, hash);
    });
  }

  /** Compute and store the views of a registered or changed tool (its registered description). */
  store(definition: ToolDefinition, hash: string): void {
    this.#write(definition.name, hash, null, toolCosts(definition));
  }

  /**
   * The views of `tool` as shown with `description` (undefined: the registered one); `shown` is
   * the definition with that description in place, used only when they must be computed.
   */
  viewsOf(tool: string, shown: ToolDefinition, description: string | undefined): StoredToolViews {
    const remembered = this.#remembered(tool, description);
    if (remembered !== undefined) return remembered;
    return this.#settle({ tool, shown, description }, this.#hashes.hashOf(tool), this.#rows(`${VIEWS} WHERE tool = ?`, tool)[0]);
  }

  /**
   * `viewsOf` for each registered tool an answer shows, by tool (others are left out). The stored
   * rows of those not read yet this lifetime come with their current hashes in one read; a
   * definition is parsed only when its views must be made. The first such read starts reading
   * the rest of the catalog's views into memory in the background (see #warmSlice), so that a later
   * step, whose successors are often tools no answer showed yet, reads none.
   */
  viewsOfEach(wanted: readonly ShownTool[]): Map<string, StoredToolViews> {
    const shown = new Map<string, StoredToolViews>();
    const unread: ShownTool[] = [];
    for (const one of wanted) {
      const remembered = this.#remembered(one.tool, one.description);
      if (remembered !== undefined) shown.set(one.tool, remembered);
      else unread.push(one);
    }
    if (unread.length === 0) return shown;
    this.#warmInBackground();
    const rows = this.#sql.exec(VIEWS_WITH_CURRENT_HASHES, JSON.stringify(unread.map(({ tool }) => tool))).raw<CurrentViewRow>();
    const current = new Map<string, { hash: string; row: ViewRow | undefined }>();
    for (const [hash, ...stored] of rows) current.set(stored[0], { hash, row: stored[1] === null ? undefined : (stored as ViewRow) });
    for (const one of unread) {
      const registered = current.get(one.tool);
      if (registered === undefined) continue;
      const { hash, row } = registered;
      const stored = row === undefined ? undefined : currentViews(row, hash, one.description ?? null);
      if (stored !== undefined) {
        this.#memory.set(one.tool, { description: one.description ?? null, views: stored });
        shown.set(one.tool, stored);
        continue;
      }
      const definition = one.shown();
      if (definition !== undefined) shown.set(one.tool, this.#settle({ tool: one.tool, shown: definition, description: one.description }, hash, row));
    }
    return shown;
  }

  #rows(query: string, binding: string): ViewRow[] {
    return [...this.#sql.exec(query, binding).raw<ViewRow>()];
  }

  #remembered(tool: string, description: string | undefined): StoredToolViews | undefined {
    return this.#memory.get(tool, description ?? null);
  }

  /** How much of the catalog's stored views is in memory. */
  warmth(): ViewsWarmth {
    return { remembered: this.#memory.size, chars: this.#memory.chars, complete: this.#warmedThrough === undefined };
  }

  #warmInBackground(): void {
    if (this.#warmScheduled || this.#warmedThrough === undefined) return;
    this.#warmScheduled = true;
    this.#runLater(() => {
      this.#warmScheduled = false;
      let more = false;
      try {
        more = this.#warmSlice();
      } catch (error) {
        // Background work outside any request: a failed read stops it (answers read what they show).
        this.#warmedThrough = undefined;
        console.warn(`tool views not read into memory: ${String(error)}`);
      }
      if (more) this.#warmInBackground();
    }, VIEWS_WARM_GAP_MS);
  }

  /**
   * Reads the next VIEWS_WARM_SLICE stored views into memory (those current for their tool's
   * definition; tools already remembered keep their place); false once every row has been read or
   * memory is full, so a catalog larger than the bound never churns it.
   */
  #warmSlice(): boolean {
    const after = this.#warmedThrough;
    if (after === undefined) return false;
    let last: string | undefined;
    let read = 0;
    for (const [hash, ...stored] of this.#sql.exec(VIEWS_AFTER, after ?? "", VIEWS_WARM_SLICE).raw<CurrentViewRow>()) {
      const row = stored as ViewRow;
      const [tool, , description] = row;
      last = tool;
      read += 1;
      if (this.#memory.has(tool)) continue;
      const views = currentViews(row, hash, description);
      if (views === undefined) continue;
      const remembered = { description, views };
      if (!this.#memory.hasRoomFor(this.#memory.charsOf(tool, remembered))) {
        this.#warmedThrough = undefined;
        return false;
      }
      this.#memory.set(tool, remembered);
    }
    this.#warmedThrough = read < VIEWS_WARM_SLICE ? undefined : last;
    return this.#warmedThrough !== undefined;
  }

  /** The views from the stored row when it is current, else computed (and stored when the tool is registered); remembered. */
  #settle(
    { tool, shown, description }: { tool: string; shown: ToolDefinition; description: string | undefined },
    current: string | undefined,
    row: ViewRow | undefined,
  ): StoredToolViews {
    const wanted = description ?? null;
    let views = row === undefined || current === undefined ? undefined : currentViews(row, current, wanted);
    if (views === undefined) {
      views = toolCosts(shown);
      if (current !== undefined) this.#write(tool, current, wanted, views);
    }
    this.#memory.set(tool, { description: wanted, views });
    return views;
  }

  /** Forget tools that changed or were removed (their rows go with them or are replaced). */
  forget(tools: readonly string[], removed: boolean): void {
    for (const tool of tools) {
      this.#memory.delete(tool);
      if (removed) run(this.#sql, "DELETE FROM tool_views WHERE tool = ?", tool);
    }
  }

  #write(tool: string, hash: string, description: string | null, views: StoredToolViews): void {
    run(
      this.#sql,
      `INSERT INTO tool_views (tool, hash, description, rules_version, compact, compact_tokens, required_only, required_only_tokens, run_tokens, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (tool) DO UPDATE SET hash = excluded.hash, description = excluded.description, rules_version = excluded.rules_version,
         compact = excluded.compact, compact_tokens = excluded.compact_tokens, required_only = excluded.required_only,
         required_only_tokens = excluded.required_only_tokens, run_tokens = excluded.run_tokens, line = excluded.line`,
      tool,
      hash,
      description,
      TOOL_VIEWS_VERSION,
      views.compactJson ?? JSON.stringify(views.compact),
      views.compactTokens,
      views.requiredOnlyJson ?? JSON.stringify(views.requiredOnly),
      views.requiredOnlyTokens,
      views.runTokens,
      views.line,
    );
    this.#memory.delete(tool);
  }
}

/** The row's stored views when they are current: made for the tool's `current` definition hash, `description` and rules. */
function currentViews(row: ViewRow, current: string, description: string | null): StoredToolViews | undefined {
  const [, hash, shownDescription, rulesVersion, compact, compactTokens, requiredOnly, requiredOnlyTokens, runTokens, line] = row;
  if (hash !== current || shownDescription !== description || rulesVersion !== TOOL_VIEWS_VERSION) return undefined;
  if (compact === null || requiredOnly === null || runTokens === null || line === null) return undefined;
  return viewsFromText(compact, compactTokens ?? 0, requiredOnly, requiredOnlyTokens ?? 0, runTokens, line);
}

/**
 * Views read from their stored JSON text: an answer sent as text uses the text as it is, so each
 * view is parsed only when something asks for the object (`route`'s object answer, a run).
 */
export function viewsFromText(
  compactJson: string,
  compactTokens: number,
  requiredOnlyJson: string,
  requiredOnlyTokens: number,
  runTokens: number,
  line: string,
): StoredToolViews {
  let compact: OpenAiTool | undefined;
  let requiredOnly: OpenAiTool | undefined;
  return {
    get compact(): OpenAiTool {
      return (compact ??= JSON.parse(compactJson) as OpenAiTool);
    },
    get requiredOnly(): OpenAiTool {
      return (requiredOnly ??= JSON.parse(requiredOnlyJson) as OpenAiTool);
    },
    compactTokens,
    requiredOnlyTokens,
    compactJson,
    requiredOnlyJson,
    runTokens,
    line,
  };
}
