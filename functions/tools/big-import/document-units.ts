import type { Failure } from "../../common/failures";
import { importFailure } from "../import-error";
/**
 * A big OpenAPI (or Swagger 2.0) JSON document cut into units without parsing it whole: each
 * path item, each reusable component (`components/<group>/<name>`, Swagger's `definitions/<name>`
 * and the like) and each other top-level field becomes one unit, its JSON text. The scanner reads
 * UTF-8 bytes chunk by chunk and keeps only the unit it is inside, so memory stays at the size of
 * the largest unit, not the document's (a 20 MB document parsed whole costs well over 100 MB).
 */

export type UnitKind = "head" | "path" | "component";

export interface DocumentUnit {
  kind: UnitKind;
  /** JSON pointer of the unit in the document, e.g. `/paths/~1users`, `/components/schemas/User`. */
  pointer: string;
  /** The key under its parent: the top-level field, the path, or the component's name. */
  key: string;
  text: string;
}

/** Top-level maps whose every entry is a unit of its own: path items and Swagger 2.0's reusable objects. */
export const SPLIT_MAPS: ReadonlySet<string> = new Set(["paths", "definitions", "parameters", "responses", "securityDefinitions"]);

/** A document that cannot be cut into units: an import failure (`unparseable`), as a whole document's would be. */
export function unitSyntaxError(message: string): Failure {
  return importFailure("unparseable", message);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const decoder = new TextDecoder();

/** A JSON pointer token: `~` and `/` escaped (RFC 6901). */
export function pointerToken(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * Feeds bytes in; `onUnit` receives each unit as soon as it ends. Call `end()` after the last
 * chunk: it throws when the document was not one complete JSON object.
 */
export class DocumentUnitSplitter {
  readonly #onUnit: (unit: DocumentUnit) => void;
  /** One entry per open container: `{` or `[`, and for objects the key path that leads to it. */
  readonly #containers: { array: boolean; keys: string[] }[] = [];
  #inString = false;
  #escaped = false;
  /** Bytes of the object key being read (only while reading a key of a shallow object). */
  #keyBytes: number[] | undefined;
  #expectKey = false;
  #lastKey: string | undefined;
  /** The open unit: where its value started, the pieces read so far, and the depth it lives at. */
  #unit: { kind: UnitKind; keys: string[]; depth: number; pieces: Uint8Array[]; start: number } | undefined;
  #pendingKeyForValue: string[] | undefined;
  #sawRoot = false;

  constructor(onUnit: (unit: DocumentUnit) => void) {
    this.#onUnit = onUnit;
  }

  write(chunk: Uint8Array): void {
    if (this.#unit !== undefined) this.#unit.start = 0;
    for (let i = 0; i < chunk.length; i += 1) this.#byte(chunk, i);
    const unit = this.#unit;
    if (unit !== undefined) unit.pieces.push(chunk.slice(unit.start));
  }

  end(): void {
    if (!this.#sawRoot || this.#containers.length > 0 || this.#inString) {
      throw unitSyntaxError("The document ends before its top-level object closes: it is cut short or is not one JSON object.");
    }
  }

  #byte(chunk: Uint8Array, i: number): void {
    const b = chunk[i] as number;
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (b === BACKSLASH) this.#escaped = true;
      else if (b === QUOTE) {
        this.#inString = false;
        if (this.#keyBytes !== undefined) {
          this.#lastKey = decodeKey(this.#keyBytes);
          this.#keyBytes = undefined;
        }
        return;
      }
      this.#keyBytes?.push(b);
      return;
    }
    if (this.#containers.length === 0 && b !== 0x7b && !isWhitespace(b)) {
      // Outside the top-level object only whitespace (and a byte-order mark) may stand: YAML, or JSON that is not one object, stops here.
      if (!(this.#sawRoot === false && (b === 0xef || b === 0xbb || b === 0xbf))) {
        throw unitSyntaxError(this.#sawRoot ? "The document continues after its top-level object." : "The document is not one JSON object.");
      }
    }
    switch (b) {
      case QUOTE:
        this.#inString = true;
        if (this.#expectKey) {
          this.#expectKey = false;
          // Keys matter only up to the depth where units start (3: components/<group>/<name>).
          this.#keyBytes = this.#containers.length <= 3 ? [] : undefined;
        }
        return;
      case 0x3a: // ':' — a value follows; open a unit when this key starts one.
        this.#valueStarts(i + 1);
        return;
      case 0x7b: // '{'
        this.#open(false);
        return;
      case 0x5b: // '['
        this.#open(true);
        return;
      case 0x2c: // ','
        this.#closeUnitAt(this.#containers.length, chunk, i);
        this.#pendingKeyForValue = undefined;
        if (this.#containers.at(-1)?.array === false) this.#expectKey = true;
        return;
      case 0x7d: // '}'
      case 0x5d: // ']'
        this.#closeUnitAt(this.#containers.length, chunk, i);
        if (this.#containers.pop() === undefined) throw unitSyntaxError("The document closes a bracket it never opened.");
        this.#expectKey = false;
        return;
      default:
        return;
    }
  }

  #open(array: boolean): void {
    if (this.#containers.length === 0) {
      if (this.#sawRoot) throw unitSyntaxError("The document continues after its top-level object.");
      if (array) throw unitSyntaxError("The document is not one JSON object.");
      this.#sawRoot = true;
    }
    const keys = this.#pendingKeyForValue ?? this.#containers.at(-1)?.keys ?? [];
    this.#pendingKeyForValue = undefined;
    this.#containers.push({ array, keys });
    this.#expectKey = !array;
  }

  #valueStarts(start: number): void {
    const depth = this.#containers.length;
    const parent = this.#containers.at(-1);
    const key = this.#lastKey;
    this.#lastKey = undefined;
    if (parent === undefined || parent.array || key === undefined || this.#unit !== undefined) return;
    const keys = [...parent.keys, key];
    const kind = unitKind(keys);
    if (kind !== undefined) {
      this.#unit = { kind, keys, depth, pieces: [], start };
    } else {
      this.#pendingKeyForValue = keys;
    }
  }

  #closeUnitAt(depth: number, chunk: Uint8Array, end: number): void {
    const unit = this.#unit;
    if (unit === undefined || unit.depth !== depth) return;
    this.#unit = undefined;
    unit.pieces.push(chunk.subarray(unit.start, end));
    const text = decoder.decode(concat(unit.pieces)).trim();
    if (text === "") throw unitSyntaxError(`The document has no value for ${unit.keys.join(".")}.`);
    this.#onUnit({ kind: unit.kind, pointer: `/${unit.keys.map(pointerToken).join("/")}`, key: unit.keys.at(-1) ?? "", text });
  }
}

/** Which unit, if any, the value at `keys` is: split maps and `components` open deeper. */
export function unitKind(keys: string[]): UnitKind | undefined {
  const [top] = keys;
  if (top === undefined) return undefined;
  if (keys.length === 1) return SPLIT_MAPS.has(top) || top === "components" ? undefined : "head";
  if (keys.length === 2 && SPLIT_MAPS.has(top)) return top === "paths" ? "path" : "component";
  if (keys.length === 2 && top === "components") return undefined;
  if (keys.length === 3 && top === "components") return "component";
  return undefined;
}

function isWhitespace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

function decodeKey(bytes: number[]): string {
  const raw = decoder.decode(Uint8Array.from(bytes));
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    throw unitSyntaxError(`The document has a key that is not a valid JSON string: "${raw.slice(0, 80)}".`);
  }
}

function concat(pieces: Uint8Array[]): Uint8Array {
  if (pieces.length === 1) return pieces[0] as Uint8Array;
  const total = pieces.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const piece of pieces) {
    out.set(piece, offset);
    offset += piece.length;
  }
  return out;
}
