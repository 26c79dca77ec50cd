import { describe, expect, it } from "vitest";
import { WorkSlice } from "../../functions/common/work-slice";
import { DefinitionPass } from "../../functions/routing/definition-pass";
import { toolDocument } from "../../functions/toolnet/retrieval";
import type { ToolDefinition } from "../../functions/tools/definition";
import { importOpenApi } from "../../functions/tools/openapi-import";
import { generatedDocument } from "../helpers/generated-openapi";

/**
 * Routing's preparation reads the catalog in pieces (functions/routing/definition-pass.ts, issue
 * 42): each piece's stored JSON stays within its budget, known before it is parsed, and a slice
 * of the alarm that would overrun its pieces ends, the pass continuing in the next slice, with
 * the same outcome as one read of the whole catalog.
 */

async function catalog(): Promise<{ defs: ToolDefinition[]; texts: { name: string; text: string }[] }> {
  const { tools } = await importOpenApi(generatedDocument(40));
  const defs = [...tools].sort((a, b) => (a.name < b.name ? -1 : 1));
  return { defs, texts: defs.map((def) => ({ name: def.name, text: JSON.stringify(def) })) };
}

/** The registry's reads over `texts`, each piece's characters recorded. */
function rows(defs: ToolDefinition[], texts: { name: string; text: string }[], pieces: number[]) {
  return {
    flowRows: () => defs.map(({ name, path, serverUrl, parameters }) => ({ name, path, serverUrl, parameters })),
    definitionTextsAfter(after: string, maxChars: number) {
      const piece: { name: string; text: string }[] = [];
      let chars = 0;
      for (const row of texts.filter((t) => t.name > after)) {
        if (piece.length > 0 && chars + row.text.length > maxChars) break;
        piece.push(row);
        chars += row.text.length;
      }
      if (piece.length > 0) pieces.push(chars);
      return piece;
    },
  };
}

describe("routing's preparation in pieces", () => {
  it("reads pieces within their budget, and a slice that would overrun continues in the next, ending as one whole read", async () => {
    const { defs, texts } = await catalog();
    const names = new Set(defs.map((d) => d.name));
    const documentOf = (def: ToolDefinition) => toolDocument(def);

    const whole = new DefinitionPass(rows(defs, texts, []), names, new Map(), documentOf, Number.POSITIVE_INFINITY);
    while (!whole.step());

    const pieces: number[] = [];
    const budget = 3 * Math.max(...texts.map((t) => t.text.length));
    const sliced = new DefinitionPass(rows(defs, texts, pieces), names, new Map(), documentOf, budget);
    // Each slice as one alarm: at most 3 pieces, then the alarm ends and the next one continues.
    let slices = 0;
    for (let done = false; !done; ) {
      slices += 1;
      const slice = new WorkSlice({ sliceMs: 60_000, slicePieces: 3 });
      for (;;) {
        if (sliced.step()) {
          done = true;
          break;
        }
        if (!(await slice.next())) break;
      }
      expect(slices).toBeLessThan(100);
    }
    expect(slices).toBeGreaterThan(3);
    for (const chars of pieces) expect(chars).toBeLessThanOrEqual(budget);
    expect(pieces.reduce((a, b) => a + b, 0)).toBe(texts.reduce((a, t) => a + t.text.length, 0));
    expect(sliced.flowState().tools).toEqual(whole.flowState().tools);
    expect(sliced.flowState().samples).toEqual(whole.flowState().samples);
    expect(sliced.flowState().samples.size).toBeGreaterThan(0);
    expect(sliced.documents).toEqual(whole.documents);
    expect(sliced.documents?.size).toBe(defs.length);
  });
});
