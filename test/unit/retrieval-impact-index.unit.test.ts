import { describe, expect, it } from "vitest";
import { queryTerms } from "../../functions/toolnet/retrieval/analyze";
import { INDEX_FORMAT } from "../../functions/toolnet/retrieval/impact-index";
import { buildEngine, DEFAULT_TUNING, engineSearch, toSearchOptions, type RankingTuning } from "../../functions/toolnet/retrieval/minisearch-engine";
import { TOOL_DOC_FIELDS, type ToolDoc } from "../../functions/toolnet/retrieval/tool-document";
import { ToolIndex } from "../../functions/toolnet/retrieval/tool-index";
import { TopScores } from "../../functions/toolnet/retrieval/top-k";

/**
 * The impact index (precomputed BM25 impacts, accumulated term at a time) must rank exactly as MiniSearch does:
 * same tools, same order, same scores, for any k, repeated query terms weighted alike.
 */

const WORDS = (
  "movie film actor director credits review weather forecast city temperature email send invoice customer " +
  "payment order search list create delete update user account stock price ticker news article flight " +
  "airport hotel booking recipe ingredient song artist album playlist translate language currency rate"
).split(" ");

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function corpus(size: number, seed: number): ToolDoc[] {
  const random = seeded(seed);
  const word = (): string => WORDS[Math.floor(random() * WORDS.length)] ?? "";
  // Some words are lower-case compounds ("moviereview"), which a query's adjacent words also match.
  const words = (n: number): string => Array.from({ length: n }, () => (random() < 0.15 ? word() + word() : word())).join(" ");
  return Array.from({ length: size }, (_, i) => {
    const doc = Object.fromEntries(TOOL_DOC_FIELDS.map((field) => [field, random() < 0.2 ? "" : words(1 + Math.floor(random() * 12))])) as unknown as ToolDoc;
    return { ...doc, name: `tool_${i}_${WORDS[i % WORDS.length]}` };
  });
}

/** A reader of stored counts held in memory. */
function whole(counts: Uint8Array): { all: () => Uint8Array; range: (start: number, length: number) => Uint8Array } {
  return { all: () => counts, range: (start, length) => counts.slice(start, start + length) };
}

function queries(count: number, seed: number): string[] {
  const random = seeded(seed);
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(random() * 10) }, () => WORDS[Math.floor(random() * WORDS.length)] ?? "").join(random() < 0.5 ? " the " : " "),
  );
}

describe("ImpactIndex ranks as MiniSearch", () => {
  const docs = corpus(600, 7);
  const tunings: [string, Partial<RankingTuning>][] = [
    ["default", {}],
    ["all boosts 1, BM25+", { boosts: Object.fromEntries(TOOL_DOC_FIELDS.map((f) => [f, 1])) as RankingTuning["boosts"], bm25: { k: 1.2, b: 0.7, d: 0.5 } }],
  ];
  for (const [label, tuning] of tunings) {
    it(`gives MiniSearch's tools, order and scores at k = 1, 5, 30, 600 (${label})`, () => {
      const engine = buildEngine(docs);
      const options = toSearchOptions({ ...DEFAULT_TUNING, ...tuning });
      const index = ToolIndex.build(docs, tuning);
      // Many of these queries repeat a word: a repeated term is weighted (query-term-weight.ts)
      // as MiniSearch's boostTerm weighs it, bit for bit.
      expect(queries(80, 11).filter((query) => new Set(queryTerms(query)).size < queryTerms(query).length).length).toBeGreaterThan(20);
      for (const query of queries(80, 11)) {
        for (const k of [1, 5, 30, 600]) expect(index.search(query, k), `${query} @${k}`).toEqual(engineSearch(engine, query, k, options));
      }
    });
  }

  it("loads from bytes to identical results, and stays updatable", () => {
    const index = ToolIndex.build(docs);
    const loaded = ToolIndex.fromBytes(index.toBytes());
    for (const query of queries(60, 3)) expect(loaded.search(query, 10)).toEqual(index.search(query, 10));
    // The same changes on both: removals, a replacement, an addition.
    for (const target of [index, loaded]) {
      target.remove(docs[3]?.name ?? "");
      target.remove(docs[40]?.name ?? "");
      target.add({ ...(docs[5] as ToolDoc), summary: "weather weather forecast" });
      target.add({ ...(docs[6] as ToolDoc), name: "brandNewTool", description: "flight airport booking" });
    }
    for (const query of queries(60, 5)) expect(loaded.search(query, 10)).toEqual(index.search(query, 10));
    expect(loaded.names().sort()).toEqual(index.names().sort());
    expect(loaded.has(docs[3]?.name ?? "")).toBe(false);
    // After changes, a stored and reloaded index still answers the same.
    const again = ToolIndex.fromBytes(loaded.toBytes());
    for (const query of queries(60, 9)) expect(again.search(query, 10)).toEqual(index.search(query, 10));
  });

  it("loads from two parts to identical results, reading a repeated term's raw counts alone, and all of them for a change or partial matching", () => {
    const index = ToolIndex.build(docs);
    const { search, counts } = index.toParts();
    let reads = 0;
    let ranges = 0;
    const load = () =>
      ToolIndex.fromParts(whole(search), {
        all: () => {
          reads += 1;
          return counts;
        },
        range: (start, length) => {
          ranges += 1;
          return counts.slice(start, start + length);
        },
      });
    const distinct = queries(60, 3).filter((query) => new Set(queryTerms(query)).size === queryTerms(query).length);
    const loaded = load();
    for (const query of distinct) expect(loaded.search(query, 10)).toEqual(index.search(query, 10));
    expect([reads, ranges]).toEqual([0, 0]);
    for (const word of ["weather", "movie", "flight", "flightairport"]) {
      const repeated = `${word} news ${word} report ${word}`;
      expect(loaded.search(repeated, 10)).toEqual(index.search(repeated, 10));
      expect(loaded.searchMatching(repeated, 10)).toEqual(index.searchMatching(repeated, 10));
    }
    expect(reads).toBe(0);
    expect(ranges).toBeGreaterThan(0);
    expect(loaded.search("weather weather", 10)).toEqual(ToolIndex.fromBytes(index.toBytes()).search("weather weather", 10));
    // The whole counts once they are needed: a change, partial matching.
    reads = 0;
    const changed = load();
    for (const target of [index, changed]) target.add({ ...(docs[6] as ToolDoc), name: "brandNewTool", description: "flight airport booking" });
    for (const query of distinct) expect(changed.search(query, 10)).toEqual(index.search(query, 10));
    expect(reads).toBe(1);
    expect(load().looseSearch("weathr", 5)).toEqual(ToolIndex.build(docs).looseSearch("weathr", 5));
    expect(reads).toBe(2);
    // Stored again after the change, in parts or whole, it answers the same.
    const again = changed.toParts();
    const reloaded = ToolIndex.fromParts(whole(again.search), whole(again.counts));
    for (const query of queries(60, 9)) expect(reloaded.search(query, 10)).toEqual(index.search(query, 10));
    expect(ToolIndex.fromBytes(reloaded.toBytes()).search("weather weather", 10)).toEqual(index.search("weather weather", 10));
  });

  it("reads from the stored search part its head at load and a query's terms' postings alone, not the whole part", () => {
    const index = ToolIndex.build(docs);
    const { search, counts } = index.toParts();
    const read = { whole: 0, bytes: 0 };
    const loaded = ToolIndex.fromParts(
      {
        all: () => {
          read.whole += 1;
          return search;
        },
        range: (start, length) => {
          read.bytes += length;
          return search.slice(start, start + length);
        },
      },
      whole(counts),
    );
    const head = read.bytes;
    expect(head).toBeLessThan(search.length / 2);
    for (const query of ["weather report", "flight airport", "movie"]) {
      expect(loaded.search(query, 10)).toEqual(index.search(query, 10));
      expect(loaded.searchMatching(query, 10)).toEqual(index.searchMatching(query, 10));
      expect(loaded.termImpacts(query, ["weatherTool", "nope"])).toEqual(index.termImpacts(query, ["weatherTool", "nope"]));
    }
    const afterSearches = read.bytes;
    expect(afterSearches).toBeGreaterThan(head);
    expect(afterSearches).toBeLessThan(search.length);
    // A term's postings are read once.
    loaded.search("weather report", 10);
    expect(read.bytes).toBe(afterSearches);
    expect(read.whole).toBe(0);
    expect(loaded.has(docs[3]?.name ?? "")).toBe(true);
    expect(loaded.names()).toEqual(index.names());
  });

  it("finds a word a search has already looked up once a tool adds it to the index (the per-index word memo is not stale)", () => {
    const parts = ToolIndex.build(docs).toParts();
    for (const index of [
      ToolIndex.build(docs),
      ToolIndex.fromBytes(ToolIndex.build(docs).toBytes()),
      ToolIndex.fromParts(whole(parts.search), whole(parts.counts)),
    ]) {
      // Unknown words, a compound of two of them, and known words beside them: all remembered by the first search.
      const query = "quokka telemetry weather quokkatelemetry";
      const before = index.search(query, 5);
      expect(before.map((hit) => hit.name)).not.toContain("quokkaTool");
      index.add({ ...(docs[0] as ToolDoc), name: "quokkaTool", description: "quokka telemetry", summary: "quokkatelemetry" });
      const engine = buildEngine([...docs, { ...(docs[0] as ToolDoc), name: "quokkaTool", description: "quokka telemetry", summary: "quokkatelemetry" }]);
      expect(index.search(query, 5)).toEqual(engineSearch(engine, query, 5, toSearchOptions(DEFAULT_TUNING)));
      expect(index.search(query, 5)[0]?.name).toBe("quokkaTool");
    }
  });

  it("recomputes impacts when loaded with another tuning", () => {
    const bytes = ToolIndex.build(docs).toBytes();
    const tuning = { bm25: { k: 2, b: 0.5, d: 0 } };
    const loaded = ToolIndex.fromBytes(bytes, tuning);
    const fresh = ToolIndex.build(docs, tuning);
    for (const query of queries(40, 13)) expect(loaded.search(query, 10)).toEqual(fresh.search(query, 10));
  });

  it("names a new format whenever the documents' fields change, so stored indexes are rebuilt once", () => {
    // A stored index holds terms by field id: one of another field list must not be read.
    expect({ format: INDEX_FORMAT, fields: TOOL_DOC_FIELDS }).toEqual({
      format: "atc-impact-index/8",
      fields: [
        "name",
        "operation",
        "summary",
        "description",
        "parameters",
        "parameterDocs",
        "tags",
        "action",
        "examples",
        "outputs",
        "siblings",
        "phrases",
        "values",
        "api",
      ],
    });
  });

  // Terms nearly every tool has with one impact (its everyday verbs) are stored as the tools that differ.
  const commonDocs = docs.map((doc, i) => ({
    ...doc,
    action: i % 9 === 0 ? "create" : "read show",
    summary: i % 7 === 0 ? `${doc.summary} show` : doc.summary,
  }));
  const commonQueries = [
    ...queries(40, 17).map((query, i) => (i % 2 === 0 ? `show me ${query} read` : query)),
    "show",
    "read show",
    "show show read create",
    "read weather",
  ];

  it("ranks as MiniSearch when most tools share a term's impact (alone, mixed, repeated; after changes; loaded)", () => {
    const options = toSearchOptions(DEFAULT_TUNING);
    const engine = buildEngine(commonDocs);
    const index = ToolIndex.build(commonDocs);
    for (const query of commonQueries) {
      for (const k of [1, 5, 30, 600]) expect(index.search(query, k), `${query} @${k}`).toEqual(engineSearch(engine, query, k, options));
    }
    // Removing most tools with the common terms makes them ordinary postings again; adding those
    // back, common again. The reference is MiniSearch with the same removals and additions (its
    // averages follow its history).
    const changed = ToolIndex.fromBytes(index.toBytes());
    const removed = commonDocs.filter((_, i) => i % 9 !== 0 && i % 10 !== 0);
    for (const doc of removed) {
      changed.remove(doc.name);
      engine.remove(doc);
    }
    for (const query of commonQueries)
      for (const k of [5, 30]) expect(changed.search(query, k), `${query} @${k} after removals`).toEqual(engineSearch(engine, query, k, options));
    for (const doc of removed) {
      changed.add(doc);
      engine.add(doc);
    }
    for (const query of commonQueries)
      for (const k of [5, 30]) expect(changed.search(query, k), `${query} @${k} after additions`).toEqual(engineSearch(engine, query, k, options));
  });

  it("stores a term that most tools have with one impact as the few tools that differ, not a posting per tool", () => {
    const plain = docs.map((doc) => ({ ...doc, action: "" }));
    const common = docs.map((doc, i) => ({ ...doc, action: i % 9 === 0 ? "" : "read" }));
    const extra = ToolIndex.build(common).toBytes().length - ToolIndex.build(plain).toBytes().length;
    // The term counts take 8 bytes per tool either way (tool id, frequency); impacts 12 bytes per
    // tool (tool id, impact) when stored as postings, here only for the one tool in nine without it.
    expect(extra).toBeLessThan(docs.length * (8 + 12 / 2));
  });

  it("refuses bytes of another format or damaged bytes, asking for a rebuild", () => {
    const bytes = ToolIndex.build(docs.slice(0, 20)).toBytes();
    const text = new TextDecoder().decode(bytes);
    const older = new TextEncoder().encode(text.replace(INDEX_FORMAT, "atc-impact-index/0"));
    expect(() => ToolIndex.fromBytes(older)).toThrow(/rebuild/);
    expect(() => ToolIndex.fromBytes(bytes.subarray(0, bytes.length - 16))).toThrow(/rebuild/);
    expect(() => ToolIndex.fromBytes(new Uint8Array(2))).toThrow(/rebuild/);
  });

  it("answers partial-match searches as MiniSearch does", () => {
    const engine = buildEngine(docs);
    const index = ToolIndex.build(docs);
    const loose = toSearchOptions({ ...DEFAULT_TUNING, prefixMinLength: 4, fuzzyMinLength: 5 });
    for (const query of ["direct", "forcast wether", "tickr prices", "zzzz"])
      expect(index.looseSearch(query, 5)).toEqual(engineSearch(engine, query, 5, loose));
  });
});

describe("TopScores (the k-th best approximate score a search rescores from)", () => {
  it("keeps the k largest numbers offered, in any order, repeats included", () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    for (const k of [1, 2, 5, 30]) {
      const values = Array.from({ length: 200 }, () => Math.round(random() * 50) / 7);
      const top = new TopScores(k);
      for (const value of values) top.offer(value);
      const expected = [...values].sort((a, b) => b - a)[k - 1];
      expect(top.full).toBe(true);
      expect(top.worst).toBe(expected);
    }
    const partial = new TopScores(10);
    partial.offer(3);
    expect(partial.full).toBe(false);
    expect(partial.worst).toBe(3);
  });
});
