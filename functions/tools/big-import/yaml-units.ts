import { parse as parseYaml } from "yaml";
import { pointerToken, unitKind, unitSyntaxError, type DocumentUnit } from "./document-units";
import { Failure } from "../../common/failures";

/**
 * A big OpenAPI document in YAML cut into the same units as a JSON one (document-units.ts: each
 * top-level field, each path item, each component), by its block structure, without parsing it
 * whole: a unit is the lines from its key to the next line indented no deeper than that key
 * (YAML requires a value's continuation lines, block scalars and flow collections included, to
 * be indented deeper than its key). Each unit is then parsed alone with the `yaml` library, with
 * the options a synchronous import uses, and handed on as JSON text. Only the open unit's lines
 * are held, so memory follows the largest unit, not the document.
 *
 * What a unit cannot see: an alias (`*name`) to an anchor (`&name`) set in another unit. It is
 * refused with a `yaml_alias_across_units` Failure, and upload-splitter.ts parses the document whole
 * instead when it is small enough.
 */

/** As openapi-loading.ts parses YAML: aliases expanded at most this often (a "billion laughs" guard). */
export const YAML_PARSE_OPTIONS = { maxAliasCount: 100 } as const;

/** Top-level maps whose entries are units (or, for `components`, maps of units). */
const ROOT_CONTAINERS = /^(["']?)(paths|components|definitions|parameters|responses|securityDefinitions)\1\s*:(\s|$)/;
/** `key:` and what follows the colon on its line (a plain or quoted key; plain keys may hold `:` not followed by a space). */
const KEY_LINE = /^(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s"'#?-](?:[^:#]|:(?=\S))*?)\s*:(?:\s+(.*))?$/;

interface Frame {
  /** The keys leading to this map: [] for the document, ["paths"], ["components", "schemas"]. */
  keys: string[];
  indent: number;
  /** Indentation of this map's keys, known from its first key line. */
  childIndent: number | undefined;
}

interface OpenUnit {
  /** "inline": a container whose value starts on its key line (`paths: {}`), parsed whole and cut after. */
  kind: "unit" | "inline";
  prefix: string[];
  indent: number;
  startLine: number;
  lines: string[];
}

export class YamlUnitSplitter {
  readonly #onUnit: (unit: DocumentUnit) => void;
  readonly #decoder = new TextDecoder();
  readonly #frames: Frame[] = [{ keys: [], indent: -1, childIndent: undefined }];
  #options: { maxAliasCount: number; version?: "1.1" | "1.2" } = { ...YAML_PARSE_OPTIONS };
  #partial = "";
  #lineNumber = 0;
  #unit: OpenUnit | undefined;
  #sawContent = false;
  #ended = false;

  constructor(onUnit: (unit: DocumentUnit) => void) {
    this.#onUnit = onUnit;
  }

  write(chunk: Uint8Array): void {
    const text = this.#partial + this.#decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let end = text.indexOf("\n", start); end !== -1; end = text.indexOf("\n", start)) {
      this.#line(text.slice(start, end));
      start = end + 1;
    }
    this.#partial = text.slice(start);
  }

  end(): void {
    const rest = this.#partial + this.#decoder.decode();
    this.#partial = "";
    if (rest !== "") this.#line(rest);
    this.#closeUnit();
    if (!this.#sawContent) throw unitSyntaxError("The document is empty or holds only comments.");
  }

  #line(raw: string): void {
    this.#lineNumber += 1;
    let text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (this.#lineNumber === 1 && text.startsWith("\ufeff")) text = text.slice(1);
    const trimmed = text.trimStart();
    const blank = trimmed === "" || trimmed.startsWith("#");
    if (this.#ended) {
      if (!blank) throw unitSyntaxError(`The document continues after its end marker "..." (line ${this.#lineNumber}).`);
      return;
    }
    if (this.#marker(text)) return;
    const unit = this.#unit;
    if (blank) {
      unit?.lines.push(text);
      return;
    }
    const indent = text.length - trimmed.length;
    if (unit !== undefined && (indent > unit.indent || (indent === unit.indent && isSequenceEntry(trimmed)) || closesFlow(trimmed))) {
      unit.lines.push(text);
      return;
    }
    this.#closeUnit();
    this.#keyLine(text, trimmed, indent);
  }

  /** Document markers and directives at column 0; true when the line was one. */
  #marker(text: string): boolean {
    if (/^---(\s|$)/.test(text)) {
      if (this.#sawContent) throw unitSyntaxError(`The file holds more than one YAML document (a second "---" at line ${this.#lineNumber}).`);
      const rest = text.slice(3).trim();
      if (rest !== "" && !rest.startsWith("#")) throw unitSyntaxError(`The document's root is not a block mapping (line ${this.#lineNumber}).`);
      return true;
    }
    if (/^\.\.\.(\s|$)/.test(text)) {
      this.#closeUnit();
      this.#ended = true;
      return true;
    }
    if (text.startsWith("%") && !this.#sawContent) {
      const version = /^%YAML\s+(1\.[12])\b/.exec(text)?.[1];
      if (version !== "1.1" && version !== "1.2")
        throw unitSyntaxError(`The YAML directive at line ${this.#lineNumber} is not supported: ${text.slice(0, 80)}`);
      this.#options = { ...this.#options, version };
      return true;
    }
    return false;
  }

  /** A key line of some open map: a container opens a frame, anything else a unit. */
  #keyLine(text: string, trimmed: string, indent: number): void {
    const frame = this.#frameAt(indent);
    this.#sawContent = true;
    if (isSequenceEntry(trimmed)) {
      const where = frame.keys.length === 0 ? "the document" : frame.keys.join(".");
      throw unitSyntaxError(`Line ${this.#lineNumber} starts a list where ${where} needs a map of named entries.`);
    }
    if (trimmed.startsWith("? ") || trimmed === "?") throw unitSyntaxError(`Line ${this.#lineNumber} has a complex mapping key ("?"), which is not supported.`);
    const depth = frame.keys.length;
    const container = (depth === 0 && ROOT_CONTAINERS.test(trimmed)) || (depth === 1 && frame.keys[0] === "components");
    const unit: OpenUnit = { kind: "unit", prefix: frame.keys, indent, startLine: this.#lineNumber, lines: [text] };
    if (container) {
      const rest = KEY_LINE.exec(trimmed)?.[1];
      if (rest === undefined || rest === "" || rest.startsWith("#")) {
        const key = this.#parseUnit({ ...unit, lines: [trimmed] })[0];
        this.#frames.push({ keys: [...frame.keys, key], indent, childIndent: undefined });
        return;
      }
      unit.kind = "inline";
    }
    this.#unit = unit;
  }

  /** The open map whose keys stand at `indent`, closing the maps that ended before this line. */
  #frameAt(indent: number): Frame {
    for (;;) {
      const frame = this.#frames.at(-1) as Frame;
      if (frame.childIndent === undefined) {
        if (indent > frame.indent) {
          frame.childIndent = indent;
          return frame;
        }
        this.#frames.pop();
        continue;
      }
      if (indent === frame.childIndent) return frame;
      if (indent < frame.childIndent && this.#frames.length > 1) {
        this.#frames.pop();
        continue;
      }
      throw unitSyntaxError(`Line ${this.#lineNumber} is indented by ${indent}, where a key at ${frame.childIndent} or less was expected.`);
    }
  }

  #closeUnit(): void {
    const unit = this.#unit;
    if (unit === undefined) return;
    this.#unit = undefined;
    const [key, value] = this.#parseUnit(unit);
    emitUnits([...unit.prefix, key], value, this.#onUnit);
  }

  /** The unit's one entry, parsed; a YAML error names the document's line, not the unit's. */
  #parseUnit(unit: OpenUnit): [string, unknown] {
    let parsed: unknown;
    try {
      parsed = parseYaml(unit.lines.join("\n"), this.#options);
    } catch (error) {
      throw unitError(error, unit.startLine);
    }
    const entries = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? Object.entries(parsed) : [];
    const entry = entries[0];
    if (entries.length !== 1 || entry === undefined) {
      throw unitSyntaxError(`The YAML from line ${unit.startLine} does not read as one "key: value" entry.`);
    }
    return entry;
  }
}

/**
 * The units of the value at `keys`: the value itself when `keys` names a unit, else (a container
 * such as `paths` or `components/schemas`) each of its entries. A container that is not a map holds no units.
 */
export function emitUnits(keys: string[], value: unknown, onUnit: (unit: DocumentUnit) => void): void {
  const kind = unitKind(keys);
  if (kind !== undefined) {
    const text = JSON.stringify(value) ?? "null";
    onUnit({ kind, pointer: `/${keys.map(pointerToken).join("/")}`, key: keys.at(-1) ?? "", text });
    return;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return;
  for (const [key, item] of Object.entries(value)) emitUnits([...keys, key], item, onUnit);
}

/** A line that closes a flow collection (`}` or `]`), which YAML lets stand left of its key: never a key of its own. */
function closesFlow(trimmed: string): boolean {
  return trimmed.startsWith("}") || trimmed.startsWith("]");
}

function isSequenceEntry(trimmed: string): boolean {
  return trimmed === "-" || trimmed.startsWith("- ");
}

function unitError(error: unknown, startLine: number): Failure {
  const message = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
  const alias = /^Unresolved alias[^:]*: (.+)$/.exec(message)?.[1];
  if (alias !== undefined) {
    return Failure.of(
      "yaml_alias_across_units",
      `The YAML uses the alias *${alias} (in the part from line ${startLine}) to an anchor set in another part of the document.`,
    );
  }
  const relative = /at line (\d+), column (\d+)/.exec(message);
  const where = relative === null ? `in the part from line ${startLine}` : `at line ${startLine + Number(relative[1]) - 1}, column ${relative[2]}`;
  return unitSyntaxError(`The document is not valid YAML ${where}: ${message.replace(/ at line \d+, column \d+:?$/, "")}`);
}
