/** Reading the prompt: the typed tools API blocks the probing prompts contain. */

export interface ParamSig {
  name: string;
  required: boolean;
  /** TypeScript type text, e.g. `string`, `number`, `"a" | "b"`. */
  type: string;
  description: string;
  /** path, query, header or body, as the signature's doc comment says. */
  location: string;
}

export interface ToolSig {
  name: string;
  description: string;
  /** `GET /person/{person_id}`. */
  operation: string;
  params: ParamSig[];
  /** The documented result type text (`unknown /* response not documented *\/` when none). */
  returns: string;
}

export function codeBlocks(text: string): string[] {
  return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
}

/** Index of the bracket closing the one at `open`, skipping string literals. */
export function closing(text: string, open: number): number {
  const pairs: Record<string, string> = { "{": "}", "(": ")", "[": "]", "<": ">" };
  const stack: string[] = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i] ?? "";
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end === -1 ? text.length : end + 1;
      continue;
    }
    if (pairs[c] !== undefined) stack.push(pairs[c]);
    else if (c === stack[stack.length - 1]) {
      stack.pop();
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/** `{ /** doc (query) *\/ name?: type; … }` → parameters. */
export function parseArgs(text: string): ParamSig[] {
  const body = text.trim().replace(/^\{/, "").replace(/\}$/, "");
  const params: ParamSig[] = [];
  let i = 0;
  while (i < body.length) {
    while (i < body.length && /\s/.test(body[i] ?? "")) i++;
    if (i >= body.length) break;
    let description = "";
    let location = "";
    if (body.startsWith("/**", i)) {
      const end = body.indexOf("*/", i);
      const doc = body.slice(i + 3, end).trim();
      location = /\((path|query|header|body)\)$/.exec(doc)?.[1] ?? "";
      description = doc.replace(/\s*\((path|query|header|body)\)$/, "");
      i = end + 2;
      while (i < body.length && /\s/.test(body[i] ?? "")) i++;
    }
    const colon = body.indexOf(":", i);
    if (colon === -1) break;
    let name = body.slice(i, colon).trim();
    const required = !name.endsWith("?");
    name = name.replace(/\?$/, "");
    if (name.startsWith('"')) name = JSON.parse(name) as string;
    // The type runs to the `;` at depth 0.
    let j = colon + 1;
    let depth = 0;
    for (; j < body.length; j++) {
      const c = body[j];
      if (c === '"') {
        for (j++; j < body.length && body[j] !== '"'; j++) if (body[j] === "\\") j++;
      } else if (c === "{" || c === "(" || c === "[" || c === "<") depth++;
      else if (c === "}" || c === ")" || c === "]" || c === ">") depth--;
      else if (c === ";" && depth === 0) break;
    }
    params.push({ name, required, type: body.slice(colon + 1, j).trim(), description, location });
    i = j + 1;
  }
  return params;
}

/** The tool signatures of one `declare const tools: {…}` block. */
export function parseSignatures(block: string): ToolSig[] {
  const sigs: ToolSig[] = [];
  let comment: string[] = [];
  for (const line of block.split("\n")) {
    const doc = /^\s*\*\s?(.*)$/.exec(line);
    if (/^\s*\/\*\*/.test(line)) {
      comment = [];
      continue;
    }
    if (/^\s*\*\//.test(line)) continue;
    if (doc !== null && !/^\s*\*\//.test(line)) {
      comment.push(doc[1] ?? "");
      continue;
    }
    const head = /^ {2}([A-Za-z_][A-Za-z0-9_]*)\(args: /.exec(line);
    if (head === null) continue;
    const open = line.indexOf("{", head[0].length - 1);
    const close = closing(line, open);
    const returns = /\): Promise<([\s\S]*)>;\s*$/.exec(line.slice(close + 1))?.[1] ?? "unknown";
    const operation = comment.find((c) => /^(GET|POST|PUT|PATCH|DELETE|HEAD) \//.test(c)) ?? "";
    sigs.push({ name: head[1] ?? "", description: comment[0] ?? "", operation, params: parseArgs(line.slice(open, close + 1)), returns });
    comment = [];
  }
  return sigs;
}
