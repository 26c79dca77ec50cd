import { describe, expect, it } from "vitest";
import { runImportJob } from "../../functions/jobs/import-job";
import { importOpenApi } from "../../functions/tools/openapi-import";
import { generatedDocument } from "../helpers/generated-openapi";
import { MemoryImportStore, MemoryJobProgress, unboundedJobSettings } from "../helpers/memory-import-store";

/**
 * Each batch of a background import renames its tools away from names another source holds
 * (tools/source-clash.ts). Asking for every other source's name at every batch read the whole
 * catalog 11,422 times in a Microsoft Graph import (issue 42): a batch now asks for its own names,
 * and for every name only when one of its own is taken, which renames it as before.
 */

const SETTINGS = unboundedJobSettings(12);

/** A tenant whose other sources hold `others` (name → source); what each batch asked of them is kept. */
class OtherSourcesStore extends MemoryImportStore {
  readonly asked: (readonly string[] | "every name")[] = [];

  constructor(readonly others: Record<string, string>) {
    super();
  }

  override toolsOfOtherSources(source: string, names?: readonly string[]): Record<string, string> {
    this.asked.push(names === undefined ? "every name" : [...names]);
    const held = Object.entries(this.others).filter(([name, of]) => of !== source && (names === undefined || names.includes(name)));
    return Object.fromEntries(held);
  }
}

describe("a background import's batches look up other sources' names by their own names (issue 42)", () => {
  const text = JSON.stringify(generatedDocument(20));

  it("asks each batch's names alone, and every name only for the batch whose name is taken, which it renames", async () => {
    const names = (await importOpenApi(text)).tools.map((tool) => tool.name);
    const taken = names[30] as string;
    const store = new OtherSourcesStore({ [taken]: "another-api", someOtherTool: "another-api" });
    store.uploads.set("u1", [new TextEncoder().encode(text)]);
    const jobs = new MemoryJobProgress();
    await runImportJob(store, jobs, { id: "job1", request: { uploadId: "u1", source: "gen", bytes: text.length } }, SETTINGS);
    expect(jobs.status).toBe("succeeded");

    const byName = store.asked.filter((asked) => asked !== "every name");
    expect(byName.length).toBeGreaterThanOrEqual(names.length / SETTINGS.batchOperations);
    for (const asked of byName) expect(asked.length).toBeLessThanOrEqual(SETTINGS.batchOperations);
    expect(byName.flat().sort()).toEqual([...names].sort());
    expect(store.asked.filter((asked) => asked === "every name")).toHaveLength(1);

    // The clashing tool is named after its source, as a whole read of the other sources named it.
    expect(store.tools.has(taken)).toBe(false);
    expect(store.tools.has(`${taken}_gen`)).toBe(true);
    expect(store.tools.size).toBe(names.length);
    expect((jobs.result as { warnings: string[] }).warnings).toContainEqual(expect.stringContaining(`"${taken}_gen"`));
  });
});
