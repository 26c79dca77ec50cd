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
  const perSource = [...bySource.values()].map((tasks) => spread(tasks, Math.ceil(count / bySource.size)));
  const picked: string[] = [];
  for (let round = 0; picked.length < count && perSource.some((tasks) => round < tasks.length); round++)
    for (const tasks of perSource) if (round < tasks.length && picked.length < count) picked.push(tasks[round] as string);
  return picked;
}

/** `count` items evenly spaced over the list (all of it when shorter), so examples are not all one kind of call. */
function spread<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  return Array.from({ length: count }, (_, i) => items[Math.floor((i * items.length) / count)] as T);
}
