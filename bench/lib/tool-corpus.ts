/**
 * Tools and trajectories at any scale, from StableToolBench's 2,479 real RapidAPI operations.
 *
 * Tools: each corpus entry becomes a bare-list item (`POST /v1/tools/import`, format "list"),
 * named as ToolBench names its functions (`<api>_for_<tool>`, snake case, last 64 characters),
 * so that StableToolBench's recorded gpt-3.5 trajectories name the same tools. Beyond 2,479, the
 * corpus is copied with new names (`<name>_v<copy>`) and a marked description.
 *
 * Trajectories: the recorded gpt-3.5 runs that completed (parsed by the project's own
 * `stableToolBenchTrajectories`), plus seeded synthetic random walks over a fixed successor list
 * of `degree` tools per tool, generated until every tool has been left through each of its
 * successors at least once (so ≈ degree observed out-edges per tool). Walk steps out of a tool
 * whose successors are all covered pick one of them with a skewed (Zipf-like) choice, so counts
 * and hence weights differ.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { stableToolBenchTrajectories, type Trajectory } from "../../functions/toolnet/graph";
import { randomInt, seededRandom, shuffle } from "./stats";

// The benchmark data beside the checkout when it is there; else the copies the tests carry
// (StableToolBench and API-Bank only), so tests that build corpora from it need no outside folder.
export const DATA = process.env.ATC_DATA ?? (existsSync(resolve("../shared/data")) ? resolve("../shared/data") : resolve("test/fixtures/data"));

export function readData(path: string): unknown {
  return JSON.parse(readFileSync(resolve(DATA, path), "utf8"));
}

interface CorpusParameter {
  name?: unknown;
  type?: unknown;
  description?: unknown;
  default?: unknown;
}

interface CorpusEntry {
  id: string;
  category_name: string;
  tool_name: string;
  api_name: string;
  api_description: string;
  required_parameters: CorpusParameter[];
  optional_parameters: CorpusParameter[];
  method: string;
}

/** A bare-list item as `POST /v1/tools/import` takes it. */
export interface ListItem {
  name: string;
  method: string;
  url: string;
  summary: string;
  description: string;
  parameters: { name: string; in: "query"; required: boolean; description?: string; type: string; default?: unknown }[];
  tags: string[];
}

/** ToolBench's `standardize`: non-word characters to `_`, collapsed, lower case, no edge `_`. */
function standardize(raw: string): string {
  let s = raw
    .replace(/[^\u4e00-\u9fa5A-Za-z0-9_]/g, "_")
    .replace(/_+/g, "_")
    .toLowerCase();
  s = s.replace(/^_+/, "").replace(/_+$/, "");
  return /^[0-9]/.test(s) ? `get_${s}` : s;
}

const PYTHON_WORDS = new Set(["from", "class", "return", "false", "true", "id", "and"]);

/** ToolBench's function name for an API of a tool: `<api>_for_<tool>`, its last 64 characters. */
export function toolBenchName(toolName: string, apiName: string): string {
  const api = standardize(apiName);
  return `${PYTHON_WORDS.has(api) ? `is_${api}` : api}_for_${standardize(toolName)}`.slice(-64);
}

function slug(raw: string): string {
  return (
    raw
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "") || "api"
  );
}

const TYPES: Record<string, string> = { string: "string", number: "number", boolean: "boolean", array: "array", object: "object" };

function parameters(entry: CorpusEntry): ListItem["parameters"] {
  const out: ListItem["parameters"] = [];
  const seen = new Set<string>();
  const add = (p: CorpusParameter, required: boolean): void => {
    const name = typeof p.name === "string" ? p.name.trim() : "";
    if (name === "" || name.length > 200 || seen.has(name)) return;
    seen.add(name);
    // DATE/TIME/ENUM/BINARY are strings on the wire; the project's importer would only warn.
    const type = TYPES[String(p.type).toLowerCase()] ?? "string";
    const description = typeof p.description === "string" && p.description.trim() !== "" ? p.description.slice(0, 10_000) : undefined;
    const fallback = p.default === "" || p.default === null || p.default === undefined ? undefined : p.default;
    out.push({
      name,
      in: "query",
      required,
      type,
      ...(description === undefined ? {} : { description }),
      ...(fallback === undefined ? {} : { default: fallback }),
    });
  };
  for (const p of entry.required_parameters) add(p, true);
  for (const p of entry.optional_parameters) add(p, false);
  return out;
}

/** The 2,479 corpus operations as list items, names unique and valid identifiers. */
export function corpusItems(): ListItem[] {
  const entries = readData("stabletoolbench/api_corpus.json") as CorpusEntry[];
  const taken = new Set<string>();
  return entries.map((entry) => {
    let base = toolBenchName(entry.tool_name, entry.api_name);
    if (!/^[A-Za-z_]/.test(base)) base = `_${base}`.slice(0, 64);
    let name = base;
    for (let n = 2; taken.has(name); n += 1) name = `${base}_${n}`;
    taken.add(name);
    const host = slug(entry.tool_name).slice(0, 60);
    return {
      name,
      method: entry.method === "" ? "GET" : entry.method,
      url: `https://${host}.p.rapidapi.com/${slug(entry.api_name)}`,
      summary: entry.api_name.slice(0, 1_000),
      description: entry.api_description.slice(0, 20_000),
      parameters: parameters(entry),
      tags: [entry.tool_name, entry.category_name].filter((t) => t !== ""),
    };
  });
}

/** `count` items: the corpus in file order, then renamed copies of it. */
export function toolItems(count: number, corpus: readonly ListItem[] = corpusItems()): ListItem[] {
  const out: ListItem[] = [];
  // Corpus names never change; a copy's name skips any name already taken (some corpus names
  // end in _v<n> themselves).
  const taken = new Set(corpus.slice(0, count).map((item) => item.name));
  for (let i = 0; i < count; i += 1) {
    const item = corpus[i % corpus.length];
    if (item === undefined) break;
    const copy = Math.floor(i / corpus.length);
    if (copy === 0) {
      out.push(item);
      continue;
    }
    const url = new URL(item.url);
    let name = `${item.name}_v${copy}`;
    for (let n = 2; taken.has(name); n += 1) name = `${item.name}_v${copy}_${n}`;
    taken.add(name);
    out.push({
      ...item,
      name,
      url: `${url.origin}/v${copy}${url.pathname}`,
      description: `${item.description} (variant ${copy})`,
      tags: [...item.tags, `variant${copy}`],
    });
  }
  return out;
}

/** Completed gpt-3.5 runs (StableToolBench) with at least one tool among `names`. */
export function recordedTrajectories(names: ReadonlySet<string>): Trajectory[] {
  const { trajectories } = stableToolBenchTrajectories(readData("stabletoolbench/gpt35_tool_sequences.json"));
  return trajectories.filter((t) => t.tools.some((tool) => names.has(tool))).map((t) => ({ id: t.id, tools: [...t.tools] }));
}

/** Seeded random walks giving every tool ≈ `degree` observed successors (see the file comment). */
export function syntheticWalks(names: readonly string[], degree: number, seed: number): Trajectory[] {
  const random = seededRandom(seed);
  const n = names.length;
  const d = Math.min(degree, n - 1);
  const successorsOf: number[][] = names.map((_, t) => {
    const chosen = new Set<number>();
    while (chosen.size < d) {
      const s = randomInt(random, n);
      if (s !== t) chosen.add(s);
    }
    return [...chosen];
  });
  const used = new Array<number>(n).fill(0);
  // Zipf-like pick among a tool's successors once all are covered: index i with weight 1/(i+1).
  const harmonic = Array.from({ length: d }, (_, i) => 1 / (i + 1));
  const total = harmonic.reduce((a, b) => a + b, 0);
  const skewed = (): number => {
    let r = random() * total;
    for (let i = 0; i < d; i += 1) {
      r -= harmonic[i] ?? 0;
      if (r <= 0) return i;
    }
    return d - 1;
  };
  const walks: Trajectory[] = [];
  const order = shuffle(
    names.map((_, i) => i),
    random,
  );
  for (const start of order) {
    while ((used[start] ?? d) < d) {
      const length = 3 + randomInt(random, 8); // 3–10 tools
      const walk = [start];
      let current = start;
      for (let step = 1; step < length; step += 1) {
        const u = used[current] ?? d;
        const index = u < d ? u : skewed();
        if (u < d) used[current] = u + 1;
        const next = successorsOf[current]?.[index];
        if (next === undefined) break;
        walk.push(next);
        current = next;
      }
      walks.push({ id: `walk:${seed}:${walks.length}`, tools: walk.map((i) => names[i] ?? "") });
    }
  }
  return walks;
}

/** Split into batches by item count and by JSON size, so no request body nears MAX_BODY_BYTES. */
export function batches<T>(items: readonly T[], maxItems: number, maxBytes: number): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (current.length > 0 && (current.length >= maxItems || bytes + size > maxBytes)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/**
 * Tasks one at a time, each query once per cycle, in a fresh random order each cycle: a task
 * comes back only after every other query, long after the tenant object's memo of recent task
 * rankings (256, tenant-routing.ts) let it go, so a step drawn from here is a task's first.
 */
export function taskCycle(queries: readonly string[], random: () => number): () => string {
  let order: string[] = [];
  return () => {
    if (order.length === 0) order = shuffle([...queries], random);
    return order.pop() ?? "weather";
  };
}
