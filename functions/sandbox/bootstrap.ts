/**
 * Source of the code that runs inside every fresh QuickJS context before the program: it builds
 * the only capability (`tools`), `answer` and a captured `console`, and returns `run`, which
 * runs the program and turns its outcome into one string envelope for the host:
 *
 *   "U"            the answer is undefined
 *   "A" + json     the answer, as JSON
 *   "E" + json     an uncaught exception: { name?, message, stack?, tool? }
 *
 * The host functions it receives (`hostCall`, `hostLog`) stay in this closure; the program
 * cannot reach them. The host checks everything it is handed (types, sizes) anyway: a program
 * that tampers with built-ins only breaks itself.
 */
export const BOOTSTRAP_FILENAME = "atc-sandbox.js";

export const BOOTSTRAP_SOURCE = String.raw`(function (hostCall, hostLog, toolNamesJson, maxLogLineChars) {
  "use strict";
  const G = globalThis;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const apply = Reflect.apply;
  const then = Promise.prototype.then;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const StringOf = String;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const ProxyCtor = Proxy;
  const FIELD_CHARS = 4000;
  const STACK_CHARS = 8000;

  const clip = (text, max) => (text.length > max ? text.slice(0, max) + "…" : text);
  const ownFrames = (stack) =>
    typeof stack === "string"
      ? stack.split("\n").filter((line) => line.indexOf("${BOOTSTRAP_FILENAME}") < 0 && line.trim() !== "").join("\n")
      : undefined;

  class ToolError extends ErrorCtor {
    constructor(tool, message) {
      super(message);
      this.name = "ToolError";
      this.tool = tool;
    }
  }

  const names = parse(toolNamesJson);
  const listing = names.length > 0 ? names.join(", ") : "(none)";

  const callTool = (name, args) => {
    const stack = ownFrames(new ErrorCtor().stack);
    let json;
    if (args !== undefined) {
      try {
        json = stringify(args);
      } catch (e) {
        throw new TypeErrorCtor("tools." + name + ": the arguments are not JSON (" + (e && e.message) + ")");
      }
      if (typeof json !== "string") {
        throw new TypeErrorCtor("tools." + name + ": the arguments must be a JSON value, not a " + typeof args);
      }
    }
    const pending = hostCall(name, json, stack);
    if (typeof pending === "string") throw new RangeErrorCtor(pending);
    return apply(then, pending, [
      (text) => (text === undefined ? undefined : parse(text)),
      (reason) => {
        const error = new ToolError(name, "tool " + name + " failed: " + StringOf(reason));
        error.stack = stack;
        throw error;
      },
    ]);
  };

  const table = Object.create(null);
  for (const name of names) {
    const call = (args) => callTool(name, args);
    defineProperty(call, "name", { value: name });
    table[name] = call;
  }
  freeze(table);

  const tools = new ProxyCtor(table, {
    get(target, key) {
      if (typeof key !== "string") return undefined;
      if (key in target) return target[key];
      // Let await / JSON / console look at the object without tripping over the guard.
      if (key === "then" || key === "toJSON") return undefined;
      return function () {
        throw new TypeErrorCtor("tool " + key + " is not in this run's candidate set (available: " + listing + ")");
      };
    },
    set() { return false; },
    defineProperty() { return false; },
    deleteProperty() { return false; },
  });

  const show = (value) => {
    if (typeof value === "string") return value;
    try {
      if (value instanceof ErrorCtor) return value.name + ": " + value.message;
      const json = stringify(value);
      return json === undefined ? StringOf(value) : json;
    } catch (e) {
      try { return StringOf(value); } catch (e2) { return "[unprintable]"; }
    }
  };
  let logFull = false;
  const logger = (prefix) => (...values) => {
    // Once the host keeps no more lines, stop spending the program's CPU on formatting them.
    if (logFull) return;
    let line = "";
    for (let i = 0; i < values.length; i++) {
      line += (i > 0 ? " " : "") + show(values[i]);
      if (line.length > maxLogLineChars) break;
    }
    if (hostLog(clip(prefix + line, maxLogLineChars)) === false) logFull = true;
  };
  const console = freeze({
    log: logger(""),
    info: logger("[info] "),
    warn: logger("[warn] "),
    error: logger("[error] "),
    debug: logger("[debug] "),
  });

  let answered = false;
  let answerValue;
  const answer = (value) => {
    answered = true;
    answerValue = value;
    return value;
  };

  for (const [key, value] of [["tools", tools], ["answer", answer], ["console", console]]) {
    defineProperty(G, key, { value, writable: false, enumerable: false, configurable: false });
  }

  const text = (value, max) => {
    try { return clip(StringOf(value), max); } catch (e) { return undefined; }
  };
  const describe = (thrown) => {
    if (thrown === null || (typeof thrown !== "object" && typeof thrown !== "function")) {
      return stringify({ message: "uncaught " + (text(thrown, FIELD_CHARS) ?? typeof thrown) });
    }
    let name, message, stack, tool;
    try { const v = thrown.name; if (typeof v === "string") name = clip(v, 200); } catch (e) {}
    try { const v = thrown.message; if (typeof v === "string") message = clip(v, FIELD_CHARS); } catch (e) {}
    try { stack = ownFrames(thrown.stack); } catch (e) {}
    try { if (name === "ToolError" && typeof thrown.tool === "string") tool = thrown.tool; } catch (e) {}
    if (name === undefined && message === undefined) message = "uncaught " + clip(show(thrown), FIELD_CHARS);
    return stringify({ name, message: message ?? "", stack: stack === undefined ? undefined : clip(stack, STACK_CHARS), tool });
  };

  return async (program) => {
    let value;
    try {
      value = await program();
    } catch (thrown) {
      return "E" + describe(thrown);
    }
    const result = answered ? answerValue : value;
    if (result === undefined) return "U";
    let json;
    try {
      json = stringify(result);
    } catch (e) {
      return "E" + describe(new TypeErrorCtor("the answer is not JSON: " + (e && e.message)));
    }
    return typeof json === "string" ? "A" + json : "U";
  };
})`;
