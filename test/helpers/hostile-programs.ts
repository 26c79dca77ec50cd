/**
 * Programs an attacker (or a confused model) could hand the sandbox, one per class of runaway
 * work, as integration tests and bench/sandbox-containment.ts run them. Each would compute
 * for minutes or forever; loops are long rather than infinite so that a sandbox that failed to
 * stop them would answer `succeeded`, late.
 */
export const HOSTILE_PROGRAMS: readonly (readonly [name: string, program: string])[] = [
  ["a tight loop", "while (true) {}"],
  ["String.prototype.repeat on huge values", 'for (let k = 0; k < 100000; k++) "ab".repeat(4e6);\nreturn 1;'],
  ["Array.prototype.join on huge arrays", 'for (let k = 0; k < 100000; k++) new Array(4e6).join("ab");\nreturn 1;'],
  [
    "JSON.stringify of a big value",
    'const a = [];\nfor (let i = 0; i < 2e5; i++) a.push({ i, s: "x" + i });\nfor (let k = 0; k < 100000; k++) JSON.stringify(a);\nreturn 1;',
  ],
  [
    "sort of a big array",
    "const a = [];\nfor (let i = 0; i < 3e5; i++) a.push((i * 7919) % 100003);\nfor (let k = 0; k < 100000; k++) a.slice().sort();\nreturn 1;",
  ],
  ["concatenation of huge strings", 'const s = "x".repeat(1 << 22);\nfor (let k = 0; k < 100000; k++) (s + k).indexOf("zz");\nreturn 1;'],
  ["a catastrophic regex", 'for (let k = 0; k < 100000; k++) /^(a+)+$/.test("a".repeat(40) + "b");\nreturn 1;'],
  ["deep recursion", "function down(n) { return down(n + 1) + 1; }\nreturn down(0);"],
  [
    "allocation churn under the memory ceiling",
    "for (let k = 0; k < 100000; k++) { const o = []; for (let i = 0; i < 1e5; i++) o.push({ i, s: 'v' + i }); }\nreturn 1;",
  ],
  ["a microtask storm", "for (let k = 0; k < 1e9; k++) await null;\nreturn 1;"],
];

/**
 * Short work between tool calls, forever: no per-stretch budget ever trips, so the deadline
 * itself (or the run's total budget) must stop it. Calls `getGenreMovieList`.
 */
export const PACED_PROGRAM =
  "let x = 0;\nfor (let k = 0; k < 1e9; k++) {\n  await tools.getGenreMovieList({});\n  for (let i = 0; i < 20000; i++) x += i;\n}\nreturn x;";
