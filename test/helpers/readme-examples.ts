/**
 * The README's shell examples, as the README test runs them.
 *
 * Every ```sh block is a list of examples run in order against a fresh `npm start`. A command is
 * one line (or several joined by a trailing `\`); comment lines around it belong to it. Marks, all
 * visible to a reader of the README:
 *
 * - ```` ```sh remote ```` on the fence: the block needs something this machine cannot reach (a
 *   hosted model endpoint, a Cloudflare account); skipped, and the fence must say why in a comment.
 * - ```` ```sh setup ```` on the fence: commands that start or install the service; the test
 *   performs them itself (it starts the service exactly as `npm start` does) and does not run them.
 * - `# → 404 …` after a command (same or next line): the HTTP status it is expected to answer;
 *   without one, every HTTP answer must be 2xx. The figures the arrow's text gives are checked
 *   against what the command printed (`documentedFigures`): each quoted string (up to a `…`) and
 *   each `key: number` pair must be in it.
 */

export type BlockKind = "run" | "remote" | "setup";

export interface ReadmeExample {
  /** The command as written (continuation lines joined with their `\`). */
  command: string;
  /** 1-based README line where the command starts. */
  line: number;
  /** The nearest heading above it. */
  section: string;
  kind: BlockKind;
  /** HTTP statuses the command is documented to answer; empty: every answer is 2xx. */
  expectedStatuses: number[];
  /** What the comments say it answers: the text after each `→`, joined. */
  answer: string;
}

const FENCE = /^```(\S*)\s*(.*)$/;

/** Extracts every command of every shell block, with where it is and how it is marked. */
export function readmeExamples(markdown: string): ReadmeExample[] {
  const lines = markdown.split("\n");
  const examples: ReadmeExample[] = [];
  let section = "(top)";
  let block: { kind: BlockKind } | undefined;
  let inOtherFence = false;
  let pending: ReadmeExample | undefined;

  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? "";
    const fence = FENCE.exec(text);
    if (block === undefined && !inOtherFence) {
      if (fence !== null && fence[1] !== "") {
        if (fence[1] === "sh" || fence[1] === "bash") block = { kind: blockKind(fence[2] ?? "", i + 1) };
        else inOtherFence = true;
      } else if (fence !== null) {
        inOtherFence = true;
      } else if (text.startsWith("#")) {
        section = text.replace(/^#+\s*/, "");
      }
      continue;
    }
    if (inOtherFence) {
      if (text.startsWith("```")) inOtherFence = false;
      continue;
    }
    if (text.startsWith("```")) {
      block = undefined;
      pending = undefined;
      continue;
    }
    const trimmed = text.trim();
    if (trimmed === "") continue;
    if (trimmed.startsWith("#")) {
      // A comment line after a command describes that command (its answer, its status).
      if (pending !== undefined) {
        pending.expectedStatuses.push(...statusesIn(trimmed));
        // A comment continuing an answer (`#    …`, indented) belongs to it.
        if (trimmed.includes("→")) pending.answer += ` ${afterArrow(trimmed)}`;
        else if (pending.answer !== "" && /^#\s{2,}/.test(trimmed)) pending.answer += ` ${trimmed.replace(/^#\s+/, "")}`;
      }
      continue;
    }
    let command = text;
    const start = i + 1;
    while (command.endsWith("\\") && i + 1 < lines.length) {
      i += 1;
      command += `\n${lines[i] ?? ""}`;
    }
    const comment = trailingComment(command);
    pending = { command, line: start, section, kind: block?.kind ?? "run", expectedStatuses: statusesIn(comment), answer: afterArrow(comment) };
    examples.push(pending);
  }
  return examples;
}

function blockKind(info: string, line: number): BlockKind {
  const word = info.trim().split(/\s+/)[0] ?? "";
  if (word === "") return "run";
  if (word === "remote" || word === "setup") return word;
  throw new Error(`README line ${line}: unknown mark "${word}" on a shell block (known: remote, setup)`);
}

/** `# → 404 …` or `# → 202 {…}`: the statuses named right after an arrow. */
function statusesIn(comment: string): number[] {
  return [...comment.matchAll(/→\s*([1-5]\d\d)\b/g)].map((m) => Number(m[1]));
}

/** The `# …` part of a command's last line (outside quotes, roughly: after ` # `). */
function trailingComment(command: string): string {
  const last = command.split("\n").at(-1) ?? "";
  const at = last.search(/\s#\s/);
  return at === -1 ? "" : last.slice(at);
}

/** The text after the first `→` of a comment, or "" without one. */
function afterArrow(comment: string): string {
  const at = comment.indexOf("→");
  return at === -1 ? "" : comment.slice(at + 1).trim();
}

/**
 * The figures an answer's text gives, to check against what the command printed: quoted strings
 * (cut at a `…`, which marks the rest as left out; not alternatives or `<placeholders>`) and
 * `key: number` pairs.
 */
export function documentedFigures(answer: string): { strings: string[]; numbers: { key: string; value: string }[] } {
  // Left out: alternatives (`"compact"|"required-only"`: either may be printed) and placeholders (`"<tenant>"`).
  const strings = [...answer.replace(/"[^"]*"(?:\|"[^"]*")+/g, "").matchAll(/"([^"]*)"/g)]
    .filter((m) => !/<[^>]+>/.test(m[1] ?? ""))
    .map((m) => (m[1] ?? "").split("…")[0] ?? "")
    .filter((text) => text.trim() !== "");
  const outsideStrings = answer.replace(/"[^"]*"/g, '""');
  const numbers = [...outsideStrings.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(-?\d[\d,]*(?:\.\d+)?)(?![\d.,]*\s*[A-Za-z%…])/g)].map((m) => ({
    key: m[1] ?? "",
    value: (m[2] ?? "").replaceAll(",", ""),
  }));
  return { strings, numbers };
}

/** The figures of `answer` that `printed` does not show (printed JSON is compared without whitespace). */
export function missingFigures(answer: string, printed: string): string[] {
  const { strings, numbers } = documentedFigures(answer);
  const compact = printed.replace(/\s+/g, "");
  const missing = strings.filter((text) => !printed.includes(text) && !compact.includes(text.replace(/\s+/g, "")));
  for (const { key, value } of numbers) {
    if (!new RegExp(`"?${key}"?:${value.replace(".", "\\.")}(?![\\d.])`).test(compact)) missing.push(`${key}: ${value}`);
  }
  return missing;
}
