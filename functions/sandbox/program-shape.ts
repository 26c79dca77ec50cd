/**
 * The program contract, made executable. A program is either
 *   - the BODY of `async function main(tools)`: top-level `await`, `return <answer>`; or
 *   - a module-ish file that DECLARES `main` (`async function main(tools) {…}`, `const main =
 *     async () => …`, `export default async function …`), which the sandbox calls once.
 * `export` keywords are dropped, a top-level self-invocation (`main();`, `await main()`,
 * `main().then(console.log)`, `console.log(await main())`) is removed so main runs exactly once
 * and its return value is the answer, and static `import`s are refused (nothing to import).
 * The result is one function expression that the sandbox evaluates; line N of the program stays
 * line N.
 */

export type PreparedProgram = { ok: true; code: string; entry: string | undefined } | { ok: false; message: string; line: number };

const IMPORT_DECLARATION = /^\s*import\s*(?:[\w$*{]|["'])/;
const EXPORT_DEFAULT_ANONYMOUS_FUNCTION = /^(\s*)export\s+default\s+(async\s+)?function\s*(\*?)\s*\(/;
const EXPORT_DEFAULT_NAMED_DECLARATION = /^(\s*)export\s+default\s+((?:async\s+)?function\s*\*?\s*([\w$]+)|class\s+([\w$]+))/;
const EXPORT_DEFAULT_IDENTIFIER = /^(\s*)export\s+default\s+([\w$]+)\s*;?\s*$/;
const EXPORT_DEFAULT_EXPRESSION = /^(\s*)export\s+default\s+/;
const EXPORT_LIST = /^\s*export\s*\{[^}]*\}\s*;?\s*$/;
const EXPORT_DECLARATION = /^(\s*)export\s+(?=(?:async\s+)?function|class|const|let|var)/;

/** Wraps `js` (plain JavaScript) as the function expression the sandbox calls. */
export function prepareProgram(js: string): PreparedProgram {
  const lines = js.split("\n");
  let entry: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (IMPORT_DECLARATION.test(line)) {
      return {
        ok: false,
        line: i + 1,
        message: "import declarations are not supported: a program has no modules; its only capability is the global `tools` object",
      };
    }
    let match: RegExpExecArray | null;
    if ((match = EXPORT_DEFAULT_ANONYMOUS_FUNCTION.exec(line))) {
      entry = "main";
      lines[i] = line.replace(EXPORT_DEFAULT_ANONYMOUS_FUNCTION, `$1$2function$3 main(`);
    } else if ((match = EXPORT_DEFAULT_NAMED_DECLARATION.exec(line))) {
      entry = match[3] ?? match[4];
      lines[i] = line.replace(/export\s+default\s+/, "");
    } else if ((match = EXPORT_DEFAULT_IDENTIFIER.exec(line))) {
      entry = match[2];
      lines[i] = "";
    } else if (EXPORT_DEFAULT_EXPRESSION.test(line)) {
      entry = "main";
      lines[i] = line.replace(EXPORT_DEFAULT_EXPRESSION, "$1const main = ");
    } else if (EXPORT_LIST.test(line)) {
      lines[i] = "";
    } else if (EXPORT_DECLARATION.test(line)) {
      lines[i] = line.replace(EXPORT_DECLARATION, "$1");
    }
  }
  let code = lines.join("\n");
  const name = entry ?? "main";
  const pattern = name.replace(/\$/g, "\\$");
  code = removeSelfInvocations(code, pattern);
  const scan = withoutCommentsAndStrings(code);
  const declares = new RegExp(String.raw`(?:^|[\s;{}])(?:async\s+)?function\s*\*?\s*${pattern}\s*\(|(?:^|[\s;{}])(?:const|let|var)\s+${pattern}\s*=`).test(
    scan,
  );
  const calls = new RegExp(String.raw`(?<![\w$.]|function\s{0,20}|function\s{0,20}\*\s{0,20})${pattern}\s*\(`).test(scan);
  const callEntry = declares && !calls;
  // The opening shares line 1 with the program so that line numbers are unchanged.
  const wrapped = `(async function () {${code}\n;${callEntry ? `return await ${name}(tools);` : ""}\n})`;
  return { ok: true, code: wrapped, entry: callEntry ? name : undefined };
}

/**
 * Blank out top-level statements that only run the entry point (`main();`, `await main(tools)`,
 * `void main()`, `main().then(…).catch(…)`, `console.log(await main())`, over several lines
 * too); the sandbox calls it and takes its return value as the answer.
 */
function removeSelfInvocations(code: string, pattern: string): string {
  const direct = new RegExp(String.raw`^(?:await\s+|void\s+)?${pattern}\s*\(`, "gm");
  const logged = new RegExp(String.raw`^console\.(?:log|info|dir)\s*\(\s*(?:await\s+)?${pattern}\s*\(`, "gm");
  const starts: { from: number; open: number }[] = [];
  for (const match of code.matchAll(direct)) starts.push({ from: match.index, open: match.index + match[0].length - 1 });
  for (const match of code.matchAll(logged)) starts.push({ from: match.index, open: match.index + match[0].indexOf("(") });
  let out = code;
  for (const { from, open } of starts.sort((a, b) => b.from - a.from)) {
    const to = statementEnd(code, open);
    if (to === undefined) continue;
    out = out.slice(0, from) + code.slice(from, to).replace(/[^\n]/g, " ") + out.slice(to);
  }
  return out;
}

/**
 * End (exclusive) of a call statement starting with the `(` at `open`: the balanced argument
 * list, any `.then(…)`/`.catch(…)`/`.finally(…)` chain, and a `;`. Undefined when it is
 * followed by anything else (then it is not a bare invocation).
 */
function statementEnd(code: string, open: number): number | undefined {
  let i = skipBalanced(code, open);
  for (;;) {
    if (i === undefined) return undefined;
    const rest = /^\s*\.\s*(?:then|catch|finally)\s*\(/.exec(code.slice(i));
    if (!rest) break;
    i = skipBalanced(code, i + rest[0].length - 1);
  }
  const tail = /^[ \t]*;?[ \t]*(?:\/\/[^\n]*)?(?:\n|$)/.exec(code.slice(i));
  return tail ? i + tail[0].replace(/\n$/, "").length : undefined;
}

/** Index after the bracket that closes the one at `open`, skipping strings and comments. */
function skipBalanced(code: string, open: number): number | undefined {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    const c = code[i];
    if (c === '"' || c === "'" || c === "`") {
      i = skipString(code, i);
    } else if (c === "/" && code[i + 1] === "/") {
      const end = code.indexOf("\n", i);
      i = end < 0 ? code.length : end;
    } else if (c === "/" && code[i + 1] === "*") {
      const end = code.indexOf("*/", i + 2);
      i = end < 0 ? code.length : end + 1;
    } else if (c === "(" || c === "[" || c === "{") {
      depth++;
    } else if (c === ")" || c === "]" || c === "}") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

function skipString(code: string, start: number): number {
  const quote = code[start];
  for (let i = start + 1; i < code.length; i++) {
    if (code[i] === "\\") i++;
    else if (code[i] === quote) return i;
  }
  return code.length;
}

/** `code` with comments and string contents blanked, for shape detection only. */
function withoutCommentsAndStrings(code: string): string {
  let out = "";
  for (let i = 0; i < code.length; i++) {
    const c = code[i] ?? "";
    if (c === '"' || c === "'" || c === "`") {
      const end = skipString(code, i);
      out += `${c}${" ".repeat(Math.max(0, end - i - 1))}${c}`;
      i = end;
    } else if (c === "/" && code[i + 1] === "/") {
      const end = code.indexOf("\n", i);
      i = (end < 0 ? code.length : end) - 1;
    } else if (c === "/" && code[i + 1] === "*") {
      const end = code.indexOf("*/", i + 2);
      i = end < 0 ? code.length : end + 1;
      out += " ";
    } else {
      out += c;
    }
  }
  return out;
}
