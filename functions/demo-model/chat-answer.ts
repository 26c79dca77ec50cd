import { exampleRequestsAnswer } from "./example-answers";
import { playAnswer } from "./play-answers";
import { writeProgram } from "./program-writer";
import { readTypedApi } from "./typed-api";

/**
 * What the demo model says to one chat request, by what the request asks for: a program (the
 * ATC paper's I_c and its revision), the tool an error belongs to (I_a), evaluator scores,
 * Play2Prompt's JSON answers, example requests for imported tools; anything else gets a plain sentence saying what it is.
 */

export interface ChatTurn {
  readonly role: string;
  readonly content: string;
}

const UNKNOWN =
  "I am the demo model (npm start -- --demo-model), a scripted stand-in for a language model; I cannot answer this request. Configure a real model (MODEL_BASE_URL).";

/** The demo model's reply text to `messages`. */
export function answerChat(messages: readonly ChatTurn[]): string {
  const users = messages.filter((m) => m.role === "user");
  const last = users.at(-1)?.content ?? "";
  // A revision request repeats the first prompt before it; the task and the API are there.
  const first = users[0]?.content ?? "";
  const task = /^Query: (.*)$/m.exec(first)?.[1];
  if (task !== undefined && /\[Program\]/.test(last)) return `\`\`\`ts\n${writeProgram(task, readTypedApi(first))}\n\`\`\``;
  if (last.includes("Your output: [the tool name]")) return attribute(last);
  if (last.includes('{"scores": [')) return evaluate(last);
  return playAnswer(last) ?? exampleRequestsAnswer(last) ?? UNKNOWN;
}

/** I_a: the first listed tool the error message names, else the first tool the code calls. */
function attribute(prompt: string): string {
  const listed = [...prompt.matchAll(/^- ([\w$]+): /gm)].map((m) => m[1] ?? "");
  const error = prompt.slice(prompt.indexOf("====="));
  const called = [...prompt.matchAll(/tools\.([\w$]+)\(/g)].map((m) => m[1] ?? "");
  return listed.find((name) => error.includes(name)) ?? called.find((name) => listed.includes(name)) ?? listed[0] ?? "";
}

/** The evaluator: 2 for a call that worked, -2 for one that failed; it cannot judge more. */
function evaluate(prompt: string): string {
  const steps = [...prompt.matchAll(/^\d+\. .*? → (ok|FAILED):/gm)].map((m) => (m[1] === "ok" ? 2 : -2));
  return JSON.stringify({ scores: steps });
}
