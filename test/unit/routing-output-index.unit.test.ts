import { beforeEach, describe, expect, it, vi } from "vitest";
import type { SampleValue } from "../../functions/probing/protocol";
import * as vocabulary from "../../functions/probing/vocabulary";
import { OutputIndex } from "../../functions/toolnet/output-index";
import { samplePath } from "../../functions/toolnet/output-fields";

// The real word splitter, watched: a cold route of a tenant whose data flow is served per request
// makes this index from every tool's stored samples (Microsoft Graph: 11,422 tools of one API,
// most returning the same few id fields), and splitting the same paths into words again for
// every tool and every one of its samples was most of that load.
vi.mock("../../functions/probing/vocabulary", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../functions/probing/vocabulary")>();
  return { ...actual, nameWords: vi.fn(actual.nameWords) };
});

const ENTITIES = ["user", "group", "calendar", "event", "message", "drive", "site", "team", "channel", "contact", "plan", "task"];

/** One API's operations, Graph-shaped: nested `/{entity}s/{entity-id}/…` paths, each returning the same few shared id fields. */
function oneApi(size: number): { name: string; path: string; samples: SampleValue[] }[] {
  const shared = new Map<string, SampleValue>();
  const sample = (path: string): SampleValue => {
    let value = shared.get(path);
    if (value === undefined) shared.set(path, (value = { path, value: "AAMkAGI2" }));
    return value;
  };
  return Array.from({ length: size }, (_, i) => {
    const [a, b] = [ENTITIES[i % ENTITIES.length] ?? "", ENTITIES[(i * 5 + 1) % ENTITIES.length] ?? ""];
    return {
      name: `${a}s${b}sOperation${i}`,
      path: `/${a}s/{${a}-id}/${b}s/{${b}-id}/operation${i}`,
      samples: [
        sample("value[0].id"),
        sample(`value[0].${b}Id`),
        sample("value[0].createdBy.user.id"),
        sample(`value[0].${a}.id`),
        sample("value[0].displayName"),
      ],
    };
  });
}

/** The index as every tool's samples define it, each sample read on its own (what the index held before it read shared paths once). */
function expected(tools: ReturnType<typeof oneApi>): { byLeaf: Map<string, Set<string>>; byOwner: Map<string, Set<string>> } {
  const byLeaf = new Map<string, Set<string>>();
  const byOwner = new Map<string, Set<string>>();
  const add = (map: Map<string, Set<string>>, key: string, tool: string) => map.set(key, (map.get(key) ?? new Set()).add(tool));
  for (const tool of tools) {
    for (const { path } of tool.samples) {
      const { keys, leaf, isId } = samplePath(path);
      add(byLeaf, vocabulary.normalized(leaf), tool.name);
      if (!isId) continue;
      for (const word of [...vocabulary.nameWords(`${tool.name} ${tool.path}`), ...keys.flatMap((key) => vocabulary.nameWords(key))])
        add(byOwner, word, tool.name);
    }
  }
  return { byLeaf, byOwner };
}

describe("the data-flow output index over one big API", () => {
  beforeEach(() => {
    vi.mocked(vocabulary.nameWords).mockClear();
  });

  it("splits each distinct sample path into words once and each tool's name once, however many tools share them", () => {
    const tools = oneApi(2_000);
    const distinctPaths = new Set(tools.flatMap((tool) => tool.samples.map((s) => s.path))).size;
    const index = new OutputIndex();
    for (const tool of tools) index.add(tool, tool.samples);
    // A tool's own words (name and path) once; a shared path's leaf and keys once for the whole index.
    // Reading every sample on its own splits every tool's leaves, id fields' keys and own words again: 30,000 here.
    expect(vi.mocked(vocabulary.nameWords).mock.calls.length).toBeLessThanOrEqual(tools.length + 8 * distinctPaths);
  });

  it("holds what each tool's samples, read one by one, define", () => {
    const tools = oneApi(300);
    const index = new OutputIndex();
    for (const tool of tools) index.add(tool, tool.samples);
    const reference = expected(tools);
    expect(index.byLeaf).toEqual(reference.byLeaf);
    expect(index.byOwner).toEqual(reference.byOwner);
  });
});
