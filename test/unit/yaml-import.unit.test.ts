import { describe, expect, it } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { runImportJob, type ImportJobSettings } from "../../functions/jobs/import-job";
import type { DocumentUnit } from "../../functions/tools/big-import/document-units";
import { splitUpload } from "../../functions/tools/big-import/upload-splitter";
import { emitUnits } from "../../functions/tools/big-import/yaml-units";
import { importOpenApi } from "../../functions/tools/openapi-import";
import { generatedDocument } from "../helpers/generated-openapi";
import { MemoryImportStore, MemoryJobProgress } from "../helpers/memory-import-store";

/**
 * Big YAML documents in the background import: cut into the same units as JSON by their block
 * structure (functions/tools/big-import/yaml-units.ts), each unit parsed alone, so the job never
 * holds the whole parsed document; aliases across units fall back to a whole parse when small.
 */

function chunked(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += size) chunks.push(bytes.slice(offset, offset + size));
  return chunks;
}

type Unit = { kind: string; pointer: string; key: string; value: unknown };

function split(text: string, size: number, wholeYamlMaxBytes?: number): { units: Unit[]; restarts: number } {
  const chunks = chunked(text, size);
  let units: Unit[] = [];
  let restarts = 0;
  const upload = { count: chunks.length, bytes: chunks.reduce((n, c) => n + c.length, 0), read: (i: number) => chunks[i] as Uint8Array };
  splitUpload(
    upload,
    {
      unit: (u: DocumentUnit) => units.push({ kind: u.kind, pointer: u.pointer, key: u.key, value: JSON.parse(u.text) as unknown }),
      restart: () => {
        units = [];
        restarts += 1;
      },
    },
    wholeYamlMaxBytes,
  );
  return { units, restarts };
}

/** The units of the document parsed whole: what cutting by lines must give. */
function wholeUnits(text: string): Unit[] {
  const units: Unit[] = [];
  emitUnits([], parseYaml(text) as unknown, (u) => units.push({ kind: u.kind, pointer: u.pointer, key: u.key, value: JSON.parse(u.text) as unknown }));
  return units;
}

const AWKWARD = [
  "\ufeff%YAML 1.2",
  "---",
  "# a comment before anything",
  'openapi: "3.0.3"',
  "info:",
  "  title: Awkward",
  "  description: |",
  "    A block scalar whose lines look like keys:",
  "    paths:",
  "",
  "      /nested: not a path",
  "  version: '1'",
  "tags:",
  "- name: compact",
  "  description: >-",
  "    folded",
  "    text",
  "- {name: flow}",
  "servers: [{url: 'https://api.example.com'}]",
  "paths:",
  "  # a comment inside paths",
  "  /a/{id}:",
  "    get:",
  "      summary: a plain scalar",
  "        that goes on",
  "      parameters:",
  "      - name: id",
  "        in: path",
  "        required: true",
  "        schema: {type: string}",
  "      responses: {'200': {description: ok}}",
  '  "/b: c":',
  "    post:",
  '      description: "a quoted',
  '        scalar\\n"',
  "      responses:",
  "        '201':",
  "          description: made",
  "  '/it''s~x': {get: {responses: {}}}",
  "components:",
  "  schemas:",
  "    A/B:",
  "      type: object",
  "      properties:",
  "        n: &num {type: integer}",
  "        m: *num",
  "",
  "    'Quoted':",
  "      type: string",
  "  securitySchemes:",
  "    key: {type: apiKey, in: header, name: X-Key}",
  "  parameters: {}",
  "x-flow: {",
  '  "a": [1,',
  "    2]",
  "}",
  "x-tail:",
  "  - 1",
  "...",
  "# after the end",
].join("\r\n");

describe("cutting a YAML document into units", () => {
  it("gives the units of the document parsed whole, whatever the chunk size (block scalars, comments, quoted keys, compact lists, flow collections, CRLF, BOM)", () => {
    const expected = wholeUnits(AWKWARD.replace("\ufeff", ""));
    expect(expected.map((u) => u.pointer)).toEqual([
      "/openapi",
      "/info",
      "/tags",
      "/servers",
      "/paths/~1a~1{id}",
      "/paths/~1b: c",
      "/paths/~1it's~0x",
      "/components/schemas/A~1B",
      "/components/schemas/Quoted",
      "/components/securitySchemes/key",
      "/x-flow",
      "/x-tail",
    ]);
    for (const size of [1, 5, 64, 100_000]) {
      const { units, restarts } = split(AWKWARD, size);
      expect(units).toEqual(expected);
      expect(restarts).toBe(0);
    }
  });

  it("names the document's line when a part is not valid YAML, and refuses what is not one mapping", () => {
    const bad = ["openapi: 3.0.0", "paths:", "  /a:", "    get: {responses: [}", "  /b:", "    get: {}"].join("\n");
    expect(() => split(bad, 7)).toThrow(/not valid YAML at line 4/);
    expect(() => split("openapi: 3.0.0\n---\nopenapi: 3.1.0\n", 4)).toThrow(/more than one YAML document/);
    expect(() => split("- a\n- b\n", 4)).toThrow(/starts a list/);
    expect(() => split("paths:\n  - /a\n", 4)).toThrow(/starts a list where paths needs a map/);
    expect(() => split("# only a comment\n", 4)).toThrow(/empty/);
  });

  it("reads a document whole when an alias points into another part and the document is small, else says how to convert it", () => {
    const aliased = [
      "openapi: 3.0.3",
      "info: {title: t, version: '1'}",
      "paths:",
      "  /a:",
      "    get: &op",
      "      responses: {'200': {description: ok}}",
      "  /b:",
      "    get: *op",
    ].join("\n");
    const { units, restarts } = split(aliased, 10);
    expect(restarts).toBe(1);
    expect(units).toEqual(wholeUnits(aliased));
    expect(units.find((u) => u.pointer === "/paths/~1b")?.value).toEqual({ get: { responses: { "200": { description: "ok" } } } });
    expect(() => split(aliased, 10, 50)).toThrow(/alias \*op .*above 50 bytes .*convert it to JSON first/);
  });
});

describe("a background import of a YAML document", () => {
  const SETTINGS: ImportJobSettings = {
    batchOperations: 400,
    batchChars: Number.POSITIVE_INFINITY,
    sliceMs: 60_000,
    slicePieces: 1_000_000,
    cutPieceBytes: 1 << 30,
    cacheChars: 200_000,
    maxTools: 20_000,
  };
  const RESOURCES = 1_000;
  const document = generatedDocument(RESOURCES);

  it("makes the same tools as the JSON import of the same document (3,000 operations)", async () => {
    const yamlText = stringifyYaml(document);
    expect(yamlText).toMatch(/^ {2}\/things999\/\{id\}:$/m);
    const store = new MemoryImportStore();
    store.uploads.set("y1", chunked(yamlText, 1 << 20));
    const jobs = new MemoryJobProgress();
    await runImportJob(store, jobs, { id: "yaml1", request: { uploadId: "y1", source: "gen", bytes: yamlText.length } }, SETTINGS);
    expect(jobs.status).toBe("succeeded");
    const whole = await importOpenApi(JSON.stringify(document));
    expect(whole.tools).toHaveLength(RESOURCES * 3);
    const background = [...store.tools.values()].map((t) => t.definition);
    expect(new Map(background.map((t) => [t.name, t]))).toEqual(new Map(whole.tools.map((t) => [t.name, t])));
    expect((jobs.result as { created: string[] }).created).toHaveLength(RESOURCES * 3);
  }, 120_000);

  it("fails a document that is not YAML as unparseable, naming the line", async () => {
    const store = new MemoryImportStore();
    const bad = "openapi: 3.0.0\npaths:\n  /a:\n    get: [\n";
    store.uploads.set("y2", chunked(bad, 4));
    const jobs = new MemoryJobProgress();
    await runImportJob(store, jobs, { id: "yaml2", request: { uploadId: "y2", source: "gen", bytes: bad.length } }, SETTINGS);
    expect(jobs.status).toBe("failed");
    expect(jobs.result).toMatchObject({ error: { code: "unparseable", message: expect.stringMatching(/JSON or YAML.*line 4/) } });
  });
});
