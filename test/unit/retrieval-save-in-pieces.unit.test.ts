import { describe, expect, it } from "vitest";
import { partsInPieces, type SavePiece } from "../../functions/toolnet/retrieval/impact-save";
import { TOOL_DOC_FIELDS, type ToolDoc } from "../../functions/toolnet/retrieval/tool-document";
import { ToolIndex } from "../../functions/toolnet/retrieval/tool-index";

/**
 * Issue 42: the routing index of a big import was saved whole every 64 changed tools, in the
 * change's transaction: Microsoft Graph's 11,422 tools held the object ≈ 0.4 s a save (1.4 s at
 * load 17), most of it merging the changes and recomputing every impact. Saved in pieces
 * (impact-save.ts), each piece's merge or impacts read at most a counted budget of postings, and
 * the parts are those `toParts` gives for the index as it was when the save began, byte for byte,
 * whatever changes come meanwhile.
 */

const WORDS = "calendar event mail message user group drive file site list create update delete get send reply team channel".split(" ");

function docs(size: number, offset = 0): ToolDoc[] {
  return Array.from({ length: size }, (_, i) => {
    const n = i + offset;
    const pick = (k: number) => Array.from({ length: 1 + ((n * 7 + k) % 5) }, (_, j) => WORDS[(n * 3 + j * k + k) % WORDS.length]).join(" ");
    const doc = Object.fromEntries(TOOL_DOC_FIELDS.map((field, f) => [field, `${pick(f + 1)} word${n % 97}`])) as unknown as ToolDoc;
    return { ...doc, name: `tool_${n}` };
  });
}

/** Two indexes of the same tools with the same changes: one is saved in pieces, the other's `toParts` is the reference. */
function changedTwins(): [ToolIndex, ToolIndex] {
  const twins: [ToolIndex, ToolIndex] = [ToolIndex.build(docs(600)), ToolIndex.build(docs(600))];
  for (const index of twins) {
    index.search("list calendar", 5);
    for (const doc of docs(40, 600)) index.add(doc);
    index.add({ ...(docs(1, 3)[0] as ToolDoc), summary: "team team channel" });
    index.remove("tool_17");
  }
  return twins;
}

function drive(pieces: Generator<SavePiece, { search: Uint8Array; counts: Uint8Array }>, between: () => void = () => {}) {
  const done: SavePiece[] = [];
  for (;;) {
    const step = pieces.next();
    if (step.done) return { parts: step.value, done };
    done.push(step.value);
    between();
  }
}

/** Byte for byte (compared as buffers: vitest's deep equality walks hundreds of thousands of elements slowly). */
function expectSameParts(made: { search: Uint8Array; counts: Uint8Array }, reference: { search: Uint8Array; counts: Uint8Array }): void {
  expect(Buffer.from(made.search).equals(Buffer.from(reference.search))).toBe(true);
  expect(Buffer.from(made.counts).equals(Buffer.from(reference.counts))).toBe(true);
}

describe("the routing index saved in pieces (issue 42)", () => {
  it("makes what toParts makes, byte for byte, each piece's merge or impacts within the budget of postings", () => {
    const [saved, reference] = changedTwins();
    const budget = 2_000;
    const { parts, done } = drive(partsInPieces(saved.savedState(), budget));
    expectSameParts(parts, reference.toParts());
    // Merging the changes and recomputing every impact were each one stretch of all the postings.
    for (const kind of ["merge", "impacts"]) {
      const pieces = done.filter((piece) => piece.piece === kind);
      expect(pieces.length, kind).toBeGreaterThan(5);
      // A piece passes the budget by one term at most: a posting per tool and field, and a walk over every tool.
      for (const piece of pieces) expect(piece.work, kind).toBeLessThanOrEqual(budget + (TOOL_DOC_FIELDS.length + 1) * 640);
      expect(
        pieces.reduce((sum, piece) => sum + piece.work, 0),
        kind,
      ).toBeGreaterThan(10 * budget);
    }
  });

  it("saves the index as it was when the save began, while it changes between pieces", () => {
    const [saved, reference] = changedTwins();
    const pieces = partsInPieces(saved.savedState(), 2_000);
    let next = 700;
    const { parts } = drive(pieces, () => {
      // Between pieces: routes search, batches add and remove tools.
      saved.add(docs(1, next)[0] as ToolDoc);
      saved.remove(`tool_${next - 650}`);
      saved.search("send mail message", 5);
      next += 1;
    });
    expect(next).toBeGreaterThan(705);
    expectSameParts(parts, reference.toParts());
  });

  it("makes the same bytes when the impacts were current already (no impact piece)", () => {
    const [saved, reference] = changedTwins();
    saved.toBytes();
    const { parts, done } = drive(partsInPieces(saved.savedState(), 2_000));
    expect(done.map((piece) => piece.piece)).toEqual(["encode"]);
    expectSameParts(parts, reference.toParts());
  });
});
