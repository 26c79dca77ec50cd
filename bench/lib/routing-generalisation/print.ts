/** One dataset's report as printed: first steps, later steps, run candidate sets, tokens and time. */
import type { Dataset } from "../routing-datasets";
import { summary, table } from "../stats";
import { ANSWER_K, fmt, MAX_TOOLS, mean, type Report, type Tally } from "./measures";
import { FIRST_ONLY, HALF, inHalf, SKIP_SETS } from "./options";

export function variantsOf(tally: Tally, suffix: string): string[] {
  return [...new Set([...tally.keys()].filter((key) => key.endsWith(`|${suffix}`)).map((key) => key.slice(0, key.lastIndexOf("|"))))];
}

export function print(dataset: Dataset, report: Report): void {
  const measured = dataset.tasks.filter((t) => inHalf(t.group)).length;
  console.log(
    `\n## ${dataset.label}: ${dataset.defs.length} tools, ${dataset.tasks.length} tasks${HALF === undefined ? "" : `, ${measured} measured (half ${HALF})`}`,
  );
  console.log(`\nFirst step (${dataset.ordered ? "first gold tool" : "gold set"} recall):`);
  const multi = report.first.get("retrieval only|all10")?.length ?? 0;
  const short = (v: string): number =>
    (report.first.get(`${v}|length`) ?? []).filter((n) => n < ANSWER_K).length / Math.max(1, report.first.get(`${v}|length`)?.length ?? 0);
  console.log(
    table(
      [
        "variant",
        "hit@1",
        "recall@5",
        "recall@10",
        `all gold in top ${ANSWER_K} (${multi} multi-tool tasks)`,
        `answer length at k = ${ANSWER_K}`,
        `answers < ${ANSWER_K}`,
      ],
      variantsOf(report.first, "5").map((v) => [
        v,
        fmt(mean(report.first.get(`${v}|1`))),
        fmt(mean(report.first.get(`${v}|5`))),
        fmt(mean(report.first.get(`${v}|10`))),
        fmt(mean(report.first.get(`${v}|all10`))),
        mean(report.first.get(`${v}|length`)).toFixed(2),
        fmt(short(v)),
      ]),
    ),
  );
  if (dataset.ordered && !FIRST_ONLY) {
    const n = report.later.get("fused: all signals|5")?.length ?? 0;
    console.log(`\nLater steps (${n} gold transitions to a tool of the catalog; hit = gold next tool among k candidates):`);
    console.log(
      table(
        ["variant", "hit@5", "hit@10"],
        variantsOf(report.later, "5").map((v) => [v, fmt(mean(report.later.get(`${v}|5`))), fmt(mean(report.later.get(`${v}|10`)))]),
      ),
    );
    console.log(`\nLater steps, fused ranking at k = 5: where each gold transition went (what the signals knew of the gold next tool):`);
    const total = [...report.misses.values()].reduce((sum, list) => sum + list.length, 0);
    console.log(
      table(
        ["outcome", "transitions", "share"],
        [...report.misses].sort((a, b) => b[1].length - a[1].length).map(([reason, list]) => [reason, String(list.length), fmt(list.length / total)]),
      ),
    );
  }
  if (FIRST_ONLY || SKIP_SETS) return;
  console.log(`\nRun candidate sets (≤ ${MAX_TOOLS} tools unless named; tokens = what the run prompt shows, o200k_base):`);
  console.log(
    table(
      ["variant", "recall", "tasks with every gold tool", "tools", "prompt tokens", "whole-definition est. tokens"],
      variantsOf(report.sets, "recall").map((v) => [
        v,
        fmt(mean(report.sets.get(`${v}|recall`))),
        fmt(mean(report.sets.get(`${v}|all`))),
        mean(report.sets.get(`${v}|size`)).toFixed(1),
        Math.round(mean(report.sets.get(`${v}|tokens`))).toLocaleString("en-US"),
        Math.round(mean(report.sets.get(`${v}|wholeDefTokens`))).toLocaleString("en-US"),
      ]),
    ),
  );
  console.log(
    `\nTokens per routing step (k = 5): prompt block ${Math.round(mean(report.tokens.get("prompt")))}, OpenAI tools array ${Math.round(mean(report.tokens.get("tools")))}`,
  );
  console.log(
    `In-process step time p50 / p99 (ms): ${[...report.timing.entries()]
      .map(([label, values]) => {
        const s = summary([...values].sort((a, b) => a - b));
        return `${label} ${s.p50.toFixed(3)} / ${s.p99.toFixed(3)}`;
      })
      .join("; ")}`,
  );
}
