/**
 * Programs that compute forever in different ways, each stopped only by the sandbox's CPU budget
 * (counted in interrupt checks): the sandbox tests check every one is stopped, and
 * `npm run bench -- sandbox-calibration` measures how many checks 100 ms of each makes.
 */
export const ENDLESS_WORKLOADS: Readonly<Record<string, string>> = {
  "while (true) {}": "while (true) {}",
  "for-loop with a sum": "let s = 0; for (let i = 0; ; i++) s += i;",
  "objects and strings": "const o: Record<string, unknown> = {}; for (let i = 0; ; i++) o['k' + (i % 1000)] = { i, s: 'x' + i };",
  "array methods": "for (;;) [1, 2, 3, 4].map((x) => x * 2).filter((x) => x > 2).reduce((a, b) => a + b, 0);",
  "regex backtracking": "/(a+)+$/.test('a'.repeat(40) + 'b');",
};
