// Live parts of the Jobs and Runs pages: job progress over server-sent events (EventSource), and
// a new run's progress streamed from the service's own SSE answer while it runs.

const TONES = { succeeded: "ok", probed: "ok", done: "ok", ok: "ok", failed: "bad", running: "warn", probing: "warn", playing: "warn" };

function setBadge(container, status) {
  const badge = container?.querySelector(".badge");
  if (!badge) return;
  badge.textContent = status;
  badge.className = `badge ${TONES[status] || "muted"}`;
}

function setBar(id, fraction) {
  const bar = document.getElementById(id);
  if (!bar) return;
  bar.value = fraction;
  const label = document.querySelector(`[data-percent-for="${CSS.escape(id)}"]`);
  if (label) label.textContent = `${Math.round(fraction * 100)} %`;
}

function followJob(element) {
  const source = new EventSource(element.getAttribute("data-live"));
  source.addEventListener("progress", (event) => {
    const job = JSON.parse(event.data);
    setBadge(element.querySelector('[data-field="status"]'), job.status);
    setBar(`job-${job.id}`, job.fraction);
    for (const tool of job.tools) {
      const row = element.querySelector(`tr[data-tool="${CSS.escape(tool.tool)}"]`);
      if (!row) continue;
      setBadge(row.querySelector('[data-field="status"]'), tool.status);
      setBar(`tool-${tool.tool}`, tool.fraction);
      const note = row.querySelector('[data-field="note"]');
      if (note) note.textContent = tool.note || "";
    }
    if (job.finished) {
      element.setAttribute("data-finished", "true");
      source.close();
    }
  });
  source.addEventListener("problem", () => source.close());
}

/** Parse a text/event-stream body into {event, data} records as they arrive. */
async function* serverEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data += line.slice(5).trim();
      }
      yield { event, data };
    }
  }
}

function describe(event, payload) {
  switch (event) {
    case "attempt_started":
      return `Attempt ${payload.attempt} started`;
    case "program":
      return `Attempt ${payload.attempt}: program written (${payload.program.split("\n").length} lines)`;
    case "tool_called":
      return `Attempt ${payload.attempt}: ${payload.tool} → ${payload.ok ? "ok" : "failed"}${payload.status ? ` (${payload.status})` : ""}`;
    case "error":
      return `Attempt ${payload.attempt} failed: ${payload.error.message}${payload.attributedTool ? ` — attributed to ${payload.attributedTool}` : ""}`;
    case "answer":
      return `Answer found in attempt ${payload.attempt}`;
    default:
      return event;
  }
}

function streamRuns(form) {
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute("content") || "";
  const section = document.getElementById("live-run");
  const list = document.getElementById("live-events");
  form.addEventListener("submit", async (submit) => {
    submit.preventDefault();
    const button = form.querySelector("button");
    button.disabled = true;
    section.hidden = false;
    list.replaceChildren();
    const add = (line, isError) => {
      const item = document.createElement("li");
      item.textContent = line;
      if (isError) item.setAttribute("role", "alert");
      list.append(item);
    };
    try {
      const response = await fetch(form.getAttribute("data-stream"), {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream", "x-csrf-token": csrf },
        body: JSON.stringify({ task: new FormData(form).get("task") }),
      });
      if (!response.ok || !response.body) {
        add((await response.text()) || `The service answered ${response.status}.`, true);
        return;
      }
      for await (const { event, data } of serverEvents(response.body)) {
        const payload = JSON.parse(data);
        if (event === "run") {
          window.location.assign(`/console/runs/${payload.id}`);
          return;
        }
        if (event === "problem") {
          add(payload.detail || payload.title, true);
          return;
        }
        add(describe(event, payload), false);
      }
    } catch (error) {
      add(`The run could not be followed: ${error.message}`, true);
    } finally {
      button.disabled = false;
    }
  });
}

for (const element of document.querySelectorAll("[data-live]")) followJob(element);
const runForm = document.getElementById("new-run");
if (runForm) streamRuns(runForm);
