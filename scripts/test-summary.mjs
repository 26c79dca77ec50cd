// Prints vitest's totals as one plain line ("vitest: N passed, N failed, N skipped") so that CI
// logs state the count in a form any reader can check. Reads the JSON report `npm test` writes.
import { readFileSync } from "node:fs";

const report = JSON.parse(readFileSync(".vitest-results.json", "utf8"));
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`vitest: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
process.exitCode = report.numFailedTests > 0 || report.numTotalTests === 0 ? 1 : 0;
