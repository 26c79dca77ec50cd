import { describe, expect, it } from "vitest";
import { ApiFamilies, MAX_SIBLINGS } from "../../functions/toolnet/api-siblings";
import { toolsTouchedBy } from "../../functions/routing/changed-apis";
import type { ToolsChange } from "../../functions/storage/tenant-events";
import { ToolDefinition } from "../../functions/tools/definition";

/** A catalog's light rows by name: what same-API siblings are made of. */
type Rows = Map<string, { serverUrl: string; summary: string }>;

const op = (api: string, name: string, summary = `${name} summary`): ToolDefinition =>
  ToolDefinition.parse({
    name,
    method: "GET",
    serverUrl: `https://${api}.example.com`,
    path: `/${name}`,
    operation: `GET /${name}`,
    summary,
    description: summary,
  });

function catalog(...defs: ToolDefinition[]): Rows {
  return new Map(defs.map((d) => [d.name, { serverUrl: d.serverUrl, summary: d.summary ?? "" }]));
}

/** The rows after `change`, and the change as the registry tells it (each former server from the rows before). */
function applied(before: Rows, upserted: ToolDefinition[], removed: string[]): { after: Rows; change: ToolsChange } {
  const after = new Map(before);
  const formerServers = new Map<string, string>();
  for (const name of [...upserted.map((d) => d.name), ...removed]) {
    const former = before.get(name);
    if (former !== undefined) formerServers.set(name, former.serverUrl);
  }
  for (const d of upserted) after.set(d.name, { serverUrl: d.serverUrl, summary: d.summary ?? "" });
  for (const name of removed) after.delete(name);
  return { after, change: { upserted: upserted.map((definition) => ({ definition, hash: definition.name })), removed, formerServers } };
}

/** The registry's read over `rows` (name order, at most `limit`), counting the rows it returns. */
function serverRows(rows: Rows) {
  const read = { rows: 0 };
  const toolsAtServer = (serverUrl: string, limit: number) => {
    const names = [...rows].filter(([, row]) => row.serverUrl === serverUrl).map(([name]) => name);
    const out = names.sort().slice(0, limit);
    read.rows += out.length;
    return out;
  };
  return { read, toolsAtServer };
}

/** Each tool's siblings as its document shows them (names and summaries), from every tool's rows. */
function documents(rows: Rows): Map<string, string> {
  const sorted = [...rows].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, row]) => ({ name, ...row }));
  const families = new ApiFamilies(sorted);
  return new Map(sorted.map(({ name }) => [name, JSON.stringify(families.of(name))]));
}

/** The tools whose document a rebuild would make differently after the change (or that changed). */
function staleAfter(before: Rows, after: Rows, change: ToolsChange): string[] {
  const was = documents(before);
  const changed = new Set([...change.upserted.map((u) => u.definition.name), ...change.removed]);
  return [...documents(after)].filter(([name, doc]) => changed.has(name) || was.get(name) !== doc).map(([name]) => name);
}

const giant = (n: number, from = 0) => Array.from({ length: n }, (_, i) => op("giant", `giant${String(from + i).padStart(4, "0")}`));
const small = [op("weather", "forecastToday"), op("weather", "forecastWeek"), op("movies", "movieCast"), op("movies", "movieReviews"), op("lone", "alone")];

describe("tools a catalog change touches", () => {
  const cases: [string, Rows, ToolDefinition[], string[]][] = [
    ["a new operation of a small API", catalog(...small), [op("weather", "rainRadar")], []],
    ["a changed summary", catalog(...small), [op("weather", "forecastWeek", "Seven days")], []],
    ["a tool moved to another API", catalog(...small), [op("weather", "movieCast")], []],
    ["a removed tool", catalog(...small), [], ["movieReviews"]],
    ["a removal that leaves a big API small enough to list siblings", catalog(...small, ...giant(MAX_SIBLINGS + 1)), [], ["giant0000"]],
    ["an addition that makes a small API too big", catalog(...small, ...giant(MAX_SIBLINGS)), [op("giant", "giant9999")], []],
    ["a lone tool joined by another", catalog(...small), [op("lone", "alsoAlone")], []],
  ];
  it.each(cases)("re-indexes every document that %s changes", (_, before, upserted, removed) => {
    const { after, change } = applied(before, upserted, removed);
    const touched = toolsTouchedBy(change, serverRows(after));
    const stale = staleAfter(before, after, change);
    expect(stale.length).toBeGreaterThan(0);
    for (const name of stale) expect(touched).toContain(name);
  });

  it("reads a bounded number of rows when one operation joins a big API, and re-indexes it alone", () => {
    const before = catalog(...small, ...giant(2_000));
    const { after, change } = applied(before, [op("giant", "giant9999")], []);
    const rows = serverRows(after);
    expect([...toolsTouchedBy(change, rows)]).toEqual(["giant9999"]);
    expect(rows.read.rows).toBeLessThanOrEqual(MAX_SIBLINGS + 3);
    expect(staleAfter(before, after, change)).toEqual(["giant9999"]);
  });
});
