import { beforeEach, describe, expect, it, vi } from "vitest";
import { SEARCHES_BEFORE_ALL_IMPACTS } from "../../functions/toolnet/retrieval/impact-index";
import { withImpacts } from "../../functions/toolnet/retrieval/impact-rebuild";
import { TOOL_DOC_FIELDS, type ToolDoc } from "../../functions/toolnet/retrieval/tool-document";
import { ToolIndex } from "../../functions/toolnet/retrieval/tool-index";

/**
 * Issue 42: while a big import changes the tools batch after batch, routes every few seconds
 * searched an index whose impacts were stale, and the first search after each change recomputed
 * every impact (all postings of 10,000 tools, up to 1.4 s on a loaded machine, on the request).
 * A search after a change computes its own terms' impacts alone, ranking exactly as before.
 */

vi.mock("../../functions/toolnet/retrieval/impact-rebuild", { spy: true });

const WORDS = "calendar event mail message user group drive file site list create update delete get send reply team channel".split(" ");

function docs(size: number, offset = 0): ToolDoc[] {
  return Array.from({ length: size }, (_, i) => {
    const n = i + offset;
    const pick = (k: number) => Array.from({ length: 1 + ((n * 7 + k) % 5) }, (_, j) => WORDS[(n * 3 + j * k + k) % WORDS.length]).join(" ");
    const doc = Object.fromEntries(TOOL_DOC_FIELDS.map((field, f) => [field, pick(f + 1)])) as unknown as ToolDoc;
    return { ...doc, name: `tool_${n}` };
  });
}

const QUERIES = ["list calendar event", "send mail mail message", "delete drive file", "team channel reply", "user group get get list"];

describe("a search after a change (issue 42)", () => {
  beforeEach(() => {
    vi.mocked(withImpacts).mockClear();
  });

  it("computes its own terms' impacts alone, ranking as the same index with every impact computed", () => {
    const index = ToolIndex.build(docs(400));
    // The same changes on a twin whose impacts are all computed before it searches (toBytes does).
    const twin = ToolIndex.build(docs(400));
    index.search("list", 5);
    for (const batch of [0, 1, 2]) {
      for (const target of [index, twin]) {
        for (const doc of docs(30, 400 + batch * 30)) target.add(doc);
        target.add({ ...(docs(1, batch)[0] as ToolDoc), summary: "calendar calendar team" });
        target.remove(`tool_${10 + batch}`);
      }
      twin.toBytes();
      vi.mocked(withImpacts).mockClear();
      for (const query of QUERIES) {
        expect(index.search(query, 10), query).toEqual(twin.search(query, 10));
        expect(index.searchMatching(query, 10), query).toEqual(twin.searchMatching(query, 10));
        expect(index.termImpacts(query, ["tool_3", "tool_420", "missing"]), query).toEqual(twin.termImpacts(query, ["tool_3", "tool_420", "missing"]));
      }
      expect(withImpacts).not.toHaveBeenCalled();
    }
  });

  it("computes every impact once searches go on without a change, and answers alike after", () => {
    const index = ToolIndex.build(docs(200));
    const reference = ToolIndex.build(docs(200));
    for (const target of [index, reference]) target.add(docs(1, 200)[0] as ToolDoc);
    reference.toBytes();
    vi.mocked(withImpacts).mockClear();
    for (let n = 0; n < SEARCHES_BEFORE_ALL_IMPACTS; n += 1) index.search(QUERIES[n % QUERIES.length] as string, 5);
    expect(withImpacts).not.toHaveBeenCalled();
    for (const query of QUERIES) expect(index.search(query, 10)).toEqual(reference.search(query, 10));
    expect(withImpacts).toHaveBeenCalledTimes(1);
  });
});
