import { splitWordsByExpressions, STOP_WORDS } from "../../functions/toolnet/retrieval/analyze";
import { STEP2_RULES, STEP3_RULES, STEP4_SUFFIXES } from "../../functions/toolnet/retrieval/stem";

/**
 * The text analysis as it was before its fast paths (functions/toolnet/retrieval/analyze.ts and
 * stem.ts at 19c0c46): Unicode regular expressions for splitting, a Porter stemmer that slices
 * (same rules and stop words, imported). Kept only as the reference the equivalence test
 * compares the current analysis against, word for word, over every text of the shared data.
 */

const ASCII_WORD = /^[a-z]+$/;

/** Porter stem of `word`; words shorter than 3 letters or not plain a–z are returned as is. */
export function referenceStem(word: string): string {
  if (word.length < 3 || !ASCII_WORD.test(word)) return word;
  let w = step1a(word);
  w = step1b(w);
  w = step1c(w);
  w = step2(w);
  w = step3(w);
  w = step4(w);
  w = step5(w);
  return w;
}

function isConsonant(w: string, i: number): boolean {
  const c = w.charAt(i);
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
  if (c === "y") return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** m in [C](VC)^m[V]: the number of vowel–consonant sequences in `stem`. */
function measure(s: string): number {
  let m = 0;
  let i = 0;
  const n = s.length;
  while (i < n && isConsonant(s, i)) i += 1;
  while (i < n) {
    while (i < n && !isConsonant(s, i)) i += 1;
    if (i >= n) break;
    while (i < n && isConsonant(s, i)) i += 1;
    m += 1;
  }
  return m;
}

function hasVowel(s: string): boolean {
  for (let i = 0; i < s.length; i += 1) if (!isConsonant(s, i)) return true;
  return false;
}

function endsDoubleConsonant(s: string): boolean {
  const n = s.length;
  return n >= 2 && s.charAt(n - 1) === s.charAt(n - 2) && isConsonant(s, n - 1);
}

/** *o: stem ends consonant–vowel–consonant, the last not w, x or y ("hop", not "how"). */
function endsCvc(s: string): boolean {
  const n = s.length;
  if (n < 3) return false;
  const last = s.charAt(n - 1);
  return isConsonant(s, n - 3) && !isConsonant(s, n - 2) && isConsonant(s, n - 1) && last !== "w" && last !== "x" && last !== "y";
}

/** Replaces the first matching suffix when its stem has measure > `minMeasure`. */
function replaceSuffix(w: string, rules: readonly (readonly [string, string])[], minMeasure: number): string {
  for (const [suffix, replacement] of rules) {
    if (w.endsWith(suffix)) {
      const base = w.slice(0, w.length - suffix.length);
      return measure(base) > minMeasure ? base + replacement : w;
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
  if (w.endsWith("eed")) return measure(w.slice(0, -3)) > 0 ? w.slice(0, -1) : w;
  let base: string | undefined;
  if (w.endsWith("ed") && hasVowel(w.slice(0, -2))) base = w.slice(0, -2);
  else if (w.endsWith("ing") && hasVowel(w.slice(0, -3))) base = w.slice(0, -3);
  if (base === undefined) return w;
  if (base.endsWith("at") || base.endsWith("bl") || base.endsWith("iz")) return `${base}e`;
  if (endsDoubleConsonant(base) && !/[lsz]$/.test(base)) return base.slice(0, -1);
  if (measure(base) === 1 && endsCvc(base)) return `${base}e`;
  return base;
}

function step1c(w: string): string {
  return w.endsWith("y") && hasVowel(w.slice(0, -1)) ? `${w.slice(0, -1)}i` : w;
}

const STEP2 = STEP2_RULES;

function step2(w: string): string {
  return replaceSuffix(w, STEP2, 0);
}

const STEP3 = STEP3_RULES;

function step3(w: string): string {
  return replaceSuffix(w, STEP3, 0);
}

const STEP4 = STEP4_SUFFIXES;

function step4(w: string): string {
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue;
    const base = w.slice(0, w.length - suffix.length);
    if (measure(base) <= 1) return w;
    if (suffix === "ion" && !/[st]$/.test(base)) return w;
    return base;
  }
  return w;
}

function step5(w: string): string {
  let out = w;
  if (out.endsWith("e")) {
    const base = out.slice(0, -1);
    const m = measure(base);
    if (m > 1 || (m === 1 && !endsCvc(base))) out = base;
  }
  if (out.endsWith("ll") && measure(out) > 1) out = out.slice(0, -1);
  return out;
}

const DIGIT = /\p{N}/u;

/** splitWords as it was: two regular-expression replaces, a match, lower case per word (still splitWords' path for non-ASCII text). */
export const referenceSplitWords = splitWordsByExpressions;

/** termOf as it was, without its memo. */
export function referenceTermOf(word: string): string | null {
  return STOP_WORDS.has(word) ? null : referenceStem(word);
}

/** queryTerms as it was. */
export function referenceQueryTerms(text: string): string[] {
  const terms: string[] = [];
  const compounds: string[] = [];
  let previous: string | undefined;
  for (const word of referenceSplitWords(text)) {
    const term = referenceTermOf(word);
    if (term === null) continue;
    terms.push(term);
    const joinable = !DIGIT.test(word);
    if (joinable && previous !== undefined) compounds.push(previous + word);
    previous = joinable ? word : undefined;
  }
  for (const compound of compounds) {
    const term = referenceTermOf(compound);
    if (term !== null) terms.push(term);
  }
  return terms;
}

/** analyze as it was. */
export function referenceAnalyze(text: string): string[] {
  return referenceSplitWords(text).flatMap((word) => {
    const term = referenceTermOf(word);
    return term === null ? [] : [term];
  });
}
