import { raw } from "hono/html";
import type { Child } from "hono/jsx";

/** A problem or refusal, as a sentence on the page (role=alert so screen readers announce it). */
export function ErrorMessage(props: { message: string | undefined }) {
  if (props.message === undefined || props.message === "") return null;
  return (
    <p class="message" role="alert">
      {props.message}
    </p>
  );
}

export function Notice(props: { message: string | undefined }) {
  if (props.message === undefined || props.message === "") return null;
  return (
    <p class="message info" role="status">
      {props.message}
    </p>
  );
}

/** What to do when a list is empty: a sentence and the exact command. */
export function EmptyState(props: { title: string; children?: Child; command?: string }) {
  return (
    <section class="empty" aria-label={props.title}>
      <h2>{props.title}</h2>
      {props.children}
      {props.command === undefined ? null : (
        <pre>
          <code>{props.command}</code>
        </pre>
      )}
    </section>
  );
}

const STATUS_TONE: Record<string, "ok" | "bad" | "warn" | "muted"> = {
  documented: "ok",
  succeeded: "ok",
  probed: "ok",
  ok: "ok",
  failed: "bad",
  broken: "bad",
  running: "warn",
  no_answer: "warn",
  probing: "warn",
  queued: "muted",
  never: "muted",
  pending: "muted",
  warn: "warn",
};

export function Badge(props: { status: string; label?: string }) {
  return <span class={`badge ${STATUS_TONE[props.status] ?? "muted"}`}>{props.label ?? props.status}</span>;
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "–";
  return ms < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

/** `1 call`, `2 calls`: a count with its noun in the number it takes (`plural` when not the noun + s). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

export function formatCount(n: number | null | undefined): string {
  return n === null || n === undefined ? "–" : n.toLocaleString("en-US");
}

export function formatPercent(fraction: number | null | undefined): string {
  return fraction === null || fraction === undefined ? "–" : `${Math.round(fraction * 100)} %`;
}

export function formatTime(iso: string): string {
  return iso.replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

/**
 * Data for the page's scripts, as a `<script type="application/json">` block: never executed, so
 * the pages' CSP needs no inline script. `<` is escaped so no value can close the element.
 */
export function JsonData(props: { id: string; value: unknown }) {
  return (
    <script type="application/json" id={props.id}>
      {raw(JSON.stringify(props.value).replaceAll("<", "\\u003c"))}
    </script>
  );
}
