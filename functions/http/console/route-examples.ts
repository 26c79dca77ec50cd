/**
 * Example tasks for the routing page, taken from the tenant's own catalog (pure): each tool's
 * description says in plain words what it does, so its first sentence is a task the catalog can
 * answer. Hard-coded examples would not match a tenant that imported other APIs.
 */

export interface CatalogTool {
  name: string;
  description?: string | undefined;
  source: string;
}

const SHORTEST = 12;
const LONGEST = 90;

/** The description's first sentence without its full stop, or undefined when it is too short or too long to be a task. */
function taskOf(description: string | undefined): string | undefined {
  const first =
    (description ?? "")
      .split(/(?<=[.!?])\s|\n/)[0]
      ?.trim()
      .replace(/[.!?]$/, "") ?? "";
  return first.length >= SHORTEST && first.length <= LONGEST ? first : undefined;
}

/** Up to `count` distinct tasks, spread over the sources and over each source's tools, in a stable order. */
export function exampleTasks(tools: readonly CatalogTool[], count = 4): string[] {
  const bySource = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const tool of [...tools].sort((a, b) => a.source.localeCompare(b.source) || a.name.localeCompare(b.name))) {
    const task = taskOf(tool.description);
    if (task === undefined || seen.has(task.toLowerCase())) continue;
    seen.add(task.toLowerCase());
    bySource.set(tool.source, [...(bySource.get(tool.source) ?? []), task]);
  }
  const perSource = [...bySource.values()];
  const shares = fairShares(
    perSource.map((tasks) => tasks.length),
    count,
  );
  const chosen = perSource.map((tasks, i) => spread(tasks, shares[i] ?? 0));
  const picked: string[] = [];
  // Interleaved, so the first examples already show different sources.
  for (let round = 0; round < count; round++) for (const tasks of chosen) if (round < tasks.length) picked.push(tasks[round] as string);
  return picked;
}

/** How many examples each source gives: one each in turn, while it has tasks left, up to `count` in all. */
function fairShares(available: readonly number[], count: number): number[] {
  const shares = available.map(() => 0);
  let left = Math.min(
    count,
    available.reduce((sum, n) => sum + n, 0),
  );
  while (left > 0)
    available.forEach((n, i) => {
      if (left > 0 && (shares[i] ?? 0) < n) {
        shares[i] = (shares[i] ?? 0) + 1;
        left -= 1;
      }
    });
  return shares;
}

/** `count` items evenly spaced over the list (all of it when shorter), so examples are not all one kind of call. */
function spread<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  return Array.from({ length: count }, (_, i) => items[Math.floor((i * items.length) / count)] as T);
}
