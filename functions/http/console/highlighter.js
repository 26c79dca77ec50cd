// highlight.js core with the grammars the console needs. Kept in a .js file with its own small
// .d.ts because highlight.js's type declarations pull in the DOM lib, which clashes with the
// Workers types the rest of the service is checked against.
import hljs from "highlight.js/lib/core";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import typescript from "highlight.js/lib/languages/typescript";

hljs.registerLanguage("typescript", typescript);
hljs.registerLanguage("javascript", javascript);
hljs.registerLanguage("json", json);

export function highlight(source, language) {
  return hljs.highlight(source, { language, ignoreIllegals: true }).value;
}
