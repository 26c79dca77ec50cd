/**
 * Porter (1980) stemmer for lower-case ASCII words, so "movies", "movie", "directed", "director"
 * and "direction" meet in one index term. Words with anything but a–z are returned unchanged:
 * stemming rules are English-only and must not mangle ids, numbers or other languages.
 */

/** True when `word` is all a–z. */
function isPlainWord(word: string): boolean {
  for (let i = 0; i < word.length; i += 1) {
    const code = word.charCodeAt(i);
    if (code < 97 || code > 122) return false;
  }
  return true;
}

/** Porter stem of `word`; words shorter than 3 letters or not plain a–z are returned as is. */
export function stem(word: string): string {
  if (word.length < 3 || !isPlainWord(word)) return word;
  let w = step1a(word);
  w = step1b(w);
  w = step1c(w);
  w = step2(w);
  w = step3(w);
  w = step4(w);
  w = step5(w);
  return w;
}

const A = 97;
const E = 101;
const I = 105;
const O = 111;
const U = 117;
const Y = 121;

// The helpers below read a prefix of the word (its first `n` letters) by char code instead of
// slicing it: a stem is computed for every word not yet memoised (analyze.ts), and slices and
// one-letter strings made it cost about a microsecond.

function isConsonant(w: string, i: number): boolean {
  const c = w.charCodeAt(i);
  if (c === A || c === E || c === I || c === O || c === U) return false;
  if (c === Y) return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** m in [C](VC)^m[V]: the number of vowel–consonant sequences in the first `n` letters of `w`. */
function measure(w: string, n: number): number {
  let m = 0;
  let i = 0;
  while (i < n && isConsonant(w, i)) i += 1;
  while (i < n) {
    while (i < n && !isConsonant(w, i)) i += 1;
    if (i >= n) break;
    while (i < n && isConsonant(w, i)) i += 1;
    m += 1;
  }
  return m;
}

/** True when the first `n` letters of `w` hold a vowel. */
function hasVowel(w: string, n: number): boolean {
  for (let i = 0; i < n; i += 1) if (!isConsonant(w, i)) return true;
  return false;
}

/** True when the first `n` letters of `w` end in a double consonant. */
function endsDoubleConsonant(w: string, n: number): boolean {
  return n >= 2 && w.charCodeAt(n - 1) === w.charCodeAt(n - 2) && isConsonant(w, n - 1);
}

/** *o: the first `n` letters of `w` end consonant–vowel–consonant, the last not w, x or y ("hop", not "how"). */
function endsCvc(w: string, n: number): boolean {
  if (n < 3) return false;
  const last = w.charAt(n - 1);
  return isConsonant(w, n - 3) && !isConsonant(w, n - 2) && isConsonant(w, n - 1) && last !== "w" && last !== "x" && last !== "y";
}

/** True when the letter before position `n` of `w` is one of `letters`. */
function endsWithOneOf(w: string, n: number, letters: string): boolean {
  return n > 0 && letters.includes(w.charAt(n - 1));
}

type Rules = ReadonlyMap<string, readonly (readonly [string, string])[]>;

/** `rules` grouped by their suffix's last letter, in their order: a word is then tried only against the rules it can match. */
function byLastLetter(rules: readonly (readonly [string, string])[]): Rules {
  const grouped = new Map<string, (readonly [string, string])[]>();
  for (const rule of rules) {
    const last = rule[0].charAt(rule[0].length - 1);
    grouped.set(last, [...(grouped.get(last) ?? []), rule]);
  }
  return grouped;
}

/** Replaces the first matching suffix when its stem has measure > `minMeasure`. */
function replaceSuffix(w: string, rules: Rules, minMeasure: number): string {
  for (const [suffix, replacement] of rules.get(w.charAt(w.length - 1)) ?? []) {
    if (w.endsWith(suffix)) {
      const n = w.length - suffix.length;
      return measure(w, n) > minMeasure ? w.slice(0, n) + replacement : w;
    }
  }
  return w;
}

function step1a(w: string): string {
  if (w.endsWith("sses")) return w.slice(0, -2);
  if (w.endsWith("ies")) return w.slice(0, -2);
  if (w.endsWith("ss")) return w;
  if (w.endsWith("s")) return w.slice(0, -1);
  return w;
}

function step1b(w: string): string {
  if (w.endsWith("eed")) return measure(w, w.length - 3) > 0 ? w.slice(0, -1) : w;
  let n = -1;
  if (w.endsWith("ed") && hasVowel(w, w.length - 2)) n = w.length - 2;
  else if (w.endsWith("ing") && hasVowel(w, w.length - 3)) n = w.length - 3;
  if (n < 0) return w;
  const base = w.slice(0, n);
  if (base.endsWith("at") || base.endsWith("bl") || base.endsWith("iz")) return `${base}e`;
  if (endsDoubleConsonant(w, n) && !endsWithOneOf(w, n, "lsz")) return base.slice(0, -1);
  if (measure(w, n) === 1 && endsCvc(w, n)) return `${base}e`;
  return base;
}

function step1c(w: string): string {
  return w.endsWith("y") && hasVowel(w, w.length - 1) ? `${w.slice(0, -1)}i` : w;
}

/** Porter's step 2 rules (suffix, replacement), in the order they are tried. */
export const STEP2_RULES: readonly (readonly [string, string])[] = [
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["bli", "ble"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
  ["logi", "log"],
];
const STEP2 = byLastLetter(STEP2_RULES);

function step2(w: string): string {
  return replaceSuffix(w, STEP2, 0);
}

/** Porter's step 3 rules, in the order they are tried. */
export const STEP3_RULES: readonly (readonly [string, string])[] = [
  ["icate", "ic"],
  ["ative", ""],
  ["alize", "al"],
  ["iciti", "ic"],
  ["ical", "ic"],
  ["ful", ""],
  ["ness", ""],
];
const STEP3 = byLastLetter(STEP3_RULES);

function step3(w: string): string {
  return replaceSuffix(w, STEP3, 0);
}

// Longest suffixes first so "ement" wins over "ment" and "ent". "or" is our addition to Porter's
// list: agent nouns in -or ("director", "editor") then meet their verb ("directed", "edit") as
// agent nouns in -er already do; the measure rule keeps short words ("actor", "color") whole.
export const STEP4_SUFFIXES: readonly string[] = [
  "ement",
  "ance",
  "ence",
  "able",
  "ible",
  "ment",
  "ant",
  "ent",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
  "ion",
  "al",
  "er",
  "or",
  "ic",
  "ou",
];

const STEP4_BY_LAST_LETTER = byLastLetter(STEP4_SUFFIXES.map((suffix) => [suffix, ""] as const));

function step4(w: string): string {
  for (const [suffix] of STEP4_BY_LAST_LETTER.get(w.charAt(w.length - 1)) ?? []) {
    if (!w.endsWith(suffix)) continue;
    const n = w.length - suffix.length;
    if (measure(w, n) <= 1) return w;
    if (suffix === "ion" && !endsWithOneOf(w, n, "st")) return w;
    return w.slice(0, n);
  }
  return w;
}

function step5(w: string): string {
  let out = w;
  if (out.endsWith("e")) {
    const n = out.length - 1;
    const m = measure(out, n);
    if (m > 1 || (m === 1 && !endsCvc(out, n))) out = out.slice(0, n);
  }
  if (out.endsWith("ll") && measure(out, out.length) > 1) out = out.slice(0, -1);
  return out;
}
