import { parse as parseYaml } from "yaml";
import { DocumentUnitSplitter, UnitSyntaxError, type DocumentUnit } from "./document-units";
import { emitUnits, YAML_PARSE_OPTIONS, YamlAliasAcrossUnitsError, YamlUnitSplitter } from "./yaml-units";

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

export function splitUpload(upload: UploadChunks, sink: UnitSink, wholeYamlMaxBytes = WHOLE_YAML_MAX_BYTES): void {
  const json = startsLikeJson(upload);
  const splitter = json ? new DocumentUnitSplitter((unit) => sink.unit(unit)) : new YamlUnitSplitter((unit) => sink.unit(unit));
  try {
    for (let index = 0; index < upload.count; index += 1) splitter.write(upload.read(index));
    splitter.end();
  } catch (error) {
    if (!(error instanceof YamlAliasAcrossUnitsError)) throw error;
    if (upload.bytes > wholeYamlMaxBytes) {
      throw new UnitSyntaxError(
        `${error.message} A YAML document above ${wholeYamlMaxBytes} bytes is read part by part, where such aliases cannot be followed: convert it to JSON first (aliases expanded), e.g. \`yq -o=json\`.`,
      );
    }
    sink.restart();
    splitWholeYaml(upload, sink);
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
    throw new UnitSyntaxError(`The document is not valid YAML: ${error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error)}`);
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) throw new UnitSyntaxError("The document is not one YAML mapping.");
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
