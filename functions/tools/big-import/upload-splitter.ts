import { parse as parseYaml } from "yaml";
import { DocumentUnitSplitter, unitSyntaxError, type DocumentUnit } from "./document-units";
import { type Failure, isFailure } from "../../common/failures";
import { emitUnits, YAML_PARSE_OPTIONS, YamlUnitSplitter } from "./yaml-units";

/**
 * An uploaded document cut into units, chunk by chunk: JSON (its first character `{` or `[`) by
 * the JSON scanner, anything else as YAML by its block structure. A YAML document whose aliases
 * point into other units cannot be read unit by unit; one of at most `wholeYamlMaxBytes` is then
 * parsed whole instead (what a synchronous import of a document within the body limit does
 * anyway), a bigger one is refused with a message that says how to convert it.
 */

/**
 * 1 MiB: parsing YAML whole is costly (the `yaml` library's document model: a generated 1.1 MB
 * document grew Node's heap by 73 MiB, garbage included), and the job runs in a 128 MB isolate.
 */
export const WHOLE_YAML_MAX_BYTES = 1024 * 1024;

export interface UploadChunks {
  count: number;
  bytes: number;
  read(index: number): Uint8Array;
}

export interface UnitSink {
  unit(unit: DocumentUnit): void;
  /** Forget the units given so far: the document is cut again from the start. */
  restart(): void;
}

/** Cuts a whole upload at once (tests, small documents); the background import cuts piece by piece with `UploadCut`. */
export function splitUpload(upload: UploadChunks, sink: UnitSink, wholeYamlMaxBytes = WHOLE_YAML_MAX_BYTES): void {
  const cut = new UploadCut(upload, sink, wholeYamlMaxBytes);
  while (!cut.advance(Number.POSITIVE_INFINITY));
}

/**
 * An upload being cut a piece at a time: each `advance` feeds the splitter at most so many bytes,
 * so the caller bounds the work between two chances to hand the object back (cutting YAML costs
 * about 3 s of CPU per MiB on a loaded machine: Microsoft Graph as YAML, 24.6 MiB, took 69 s).
 * It holds the splitter's state in memory; after an eviction the cut starts again from the top.
 */
export class UploadCut {
  readonly #upload: UploadChunks;
  readonly #sink: UnitSink;
  readonly #wholeYamlMaxBytes: number;
  readonly #splitter: DocumentUnitSplitter | YamlUnitSplitter;
  #index = 0;
  #offset = 0;
  #chunk: Uint8Array | undefined;
  #fed = 0;
  #done = false;

  constructor(upload: UploadChunks, sink: UnitSink, wholeYamlMaxBytes = WHOLE_YAML_MAX_BYTES) {
    this.#upload = upload;
    this.#sink = sink;
    this.#wholeYamlMaxBytes = wholeYamlMaxBytes;
    this.#splitter = startsLikeJson(upload) ? new DocumentUnitSplitter((unit) => sink.unit(unit)) : new YamlUnitSplitter((unit) => sink.unit(unit));
  }

  /** Bytes of the upload cut so far. */
  get bytesCut(): number {
    return this.#fed;
  }

  /** Feeds the splitter at most `maxBytes` more of the upload; true once the whole document is cut. */
  advance(maxBytes: number): boolean {
    if (this.#done) return true;
    try {
      this.#feed(maxBytes);
      if (this.#index < this.#upload.count) return false;
      this.#splitter.end();
    } catch (error) {
      if (!isFailure(error, "yaml_alias_across_units")) throw error;
      this.#cutWhole(error);
    }
    this.#done = true;
    return true;
  }

  #feed(maxBytes: number): void {
    let budget = maxBytes;
    while (budget > 0 && this.#index < this.#upload.count) {
      this.#chunk ??= this.#upload.read(this.#index);
      const piece = this.#chunk.subarray(this.#offset, this.#offset + Math.min(budget, this.#chunk.byteLength - this.#offset));
      this.#splitter.write(piece);
      this.#offset += piece.byteLength;
      this.#fed += piece.byteLength;
      budget -= piece.byteLength;
      if (this.#offset >= this.#chunk.byteLength) {
        this.#index += 1;
        this.#offset = 0;
        this.#chunk = undefined;
      }
    }
  }

  /** A YAML document whose aliases cross its units: read whole when small enough, else refused with how to convert it. */
  #cutWhole(error: Failure): void {
    if (this.#upload.bytes > this.#wholeYamlMaxBytes) {
      throw unitSyntaxError(
        `${error.message} A YAML document above ${this.#wholeYamlMaxBytes} bytes is read part by part, where such aliases cannot be followed: convert it to JSON first (aliases expanded), e.g. \`yq -o=json\`.`,
      );
    }
    this.#sink.restart();
    splitWholeYaml(this.#upload, this.#sink);
    this.#fed = this.#upload.bytes;
  }
}

function splitWholeYaml(upload: UploadChunks, sink: UnitSink): void {
  const decoder = new TextDecoder();
  let text = "";
  for (let index = 0; index < upload.count; index += 1) text += decoder.decode(upload.read(index), { stream: true });
  text += decoder.decode();
  let document: unknown;
  try {
    document = parseYaml(text, YAML_PARSE_OPTIONS);
  } catch (error) {
    throw unitSyntaxError(`The document is not valid YAML: ${error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error)}`);
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) throw unitSyntaxError("The document is not one YAML mapping.");
  emitUnits([], document, (unit) => sink.unit(unit));
}

/** The first character after a byte-order mark and whitespace opens a JSON object or array (read up to the chunk that has it). */
function startsLikeJson(upload: UploadChunks): boolean {
  for (let index = 0; index < upload.count; index += 1) {
    for (const byte of upload.read(index)) {
      if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0xef || byte === 0xbb || byte === 0xbf) continue;
      return byte === 0x7b || byte === 0x5b;
    }
  }
  return false;
}
