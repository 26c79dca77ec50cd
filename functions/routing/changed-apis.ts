import { MAX_SIBLINGS } from "../toolnet/api-siblings";
import type { ToolsChange } from "../storage/tenant-events";
import type { StateSources } from "./routing-state";

/** What the re-indexing reads of the registry: an API's operations, from the index on server URLs. */
type ServerRows = Pick<StateSources["catalog"], "toolsAtServer">;

/** How many changed tools came to one server URL and how many left it. */
interface Moves {
  came: number;
  left: number;
}

/** Changed tools' moves per server URL (an update on the same server is noted with none: its summary may have changed). */
function movesOf({ upserted, removed, formerServers }: ToolsChange): Map<string, Moves> {
  const moves = new Map<string, Moves>();
  const at = (url: string): Moves => {
    let entry = moves.get(url);
    if (entry === undefined) moves.set(url, (entry = { came: 0, left: 0 }));
    return entry;
  };
  for (const { definition } of upserted) {
    const former = formerServers.get(definition.name);
    const now = at(definition.serverUrl);
    if (former === definition.serverUrl) continue;
    now.came++;
    if (former !== undefined) at(former).left++;
  }
  for (const name of removed) {
    const former = formerServers.get(name);
    if (former !== undefined) at(former).left++;
  }
  return moves;
}

/** Whether an API of `size` tools lists siblings in its documents (api-siblings.ts). */
function listsSiblings(size: number, max: number): boolean {
  return size >= 2 && size <= max;
}

/**
 * The tools whose retrieval documents `change` touches: the changed tools and the operations of
 * every API they were in before or are in after (a document lists its API's other operations with
 * their summaries, api-siblings.ts), read API by API rather than every tool's server. An API larger
 * than `max` both before and after lists no siblings either side, so its other operations keep
 * their documents: an import of one big API in many batches reads little more than each batch.
 */
export function toolsTouchedBy(change: ToolsChange, rows: ServerRows, max = MAX_SIBLINGS): Set<string> {
  const touched = new Set([...change.upserted.map(({ definition }) => definition.name), ...change.removed]);
  for (const [url, { came, left }] of movesOf(change)) {
    // One past what an API that listed siblings before the change can hold now: a full read means too big either side.
    const limit = max + came + 2;
    const names = rows.toolsAtServer(url, limit);
    if (names.length >= limit) continue;
    const before = names.length - came + left;
    if (listsSiblings(names.length, max) || listsSiblings(before, max)) for (const name of names) touched.add(name);
  }
  return touched;
}
