// wrangler dev's output as `npm start` shows it: every line, except one known-harmless repeat.
// When wrangler 4.86 first reads its dev registry, it says "⎔ Connection status updated" and prints
// its bindings table again; `npm start` registers the world and the program host before wrangler
// starts, so that table is the one just shown. A table that differs (a worker went away or came
// back, e.g. after the program host's watchdog restarted it) is shown with its heading.

const STATUS_UPDATED = /Connection status updated\s*$/;
const TABLE_START = /has access to the following bindings:\s*$/;

/**
 * A line filter: feed it wrangler's lines in order; it returns the lines to show now (none while
 * it holds a reprinted table to compare, then all of them unless the table repeats the last one).
 */
export function dropRepeatedBindingsTables() {
  let lastTable;
  let table; // the table being printed, line by line
  let held; // "Connection status updated" and the table after it, until it ends
  return (line) => {
    if (held !== undefined) {
      held.push(line);
      if (held.length === 2 && !TABLE_START.test(line)) return flush();
      if (line.trim() !== "" || held.length === 2) return [];
      const reprinted = held.slice(1).join("\n");
      if (reprinted === lastTable) {
        held = undefined;
        return [];
      }
      lastTable = reprinted;
      return flush();
    }
    if (STATUS_UPDATED.test(line)) {
      held = [line];
      return [];
    }
    if (table !== undefined) {
      table.push(line);
      if (line.trim() === "") {
        lastTable = table.join("\n");
        table = undefined;
      }
    } else if (TABLE_START.test(line)) {
      table = [line];
    }
    return [line];
  };

  function flush() {
    const lines = held ?? [];
    held = undefined;
    return lines;
  }
}
