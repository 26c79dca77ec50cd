import { describe, expect, it } from "vitest";
import { modelLoopbackAllowed } from "../../functions/llm/config";
import { overrideProblem } from "../../functions/services/model-settings";
import { checkDestination } from "../../functions/tools/safe-call";

const LOCAL_MODEL_SERVERS = [
  "http://localhost:11434/v1", // Ollama
  "http://127.0.0.1:1234/v1", // LM Studio
  "http://localhost.:8080/v1", // llama.cpp server, spelled with the root dot
  "http://[::1]:8000/v1", // vLLM on IPv6 loopback
  "http://127.1:8000/v1", // 127.0.0.1 in another spelling
  "http://ollama.localhost:11434/v1",
];

describe("the destination guard's loopback allowance (local model servers)", () => {
  it.each(LOCAL_MODEL_SERVERS)("refuses %s by default", (url) => {
    expect(checkDestination(url).ok).toBe(false);
  });

  it.each(LOCAL_MODEL_SERVERS)("allows %s when asked", (url) => {
    expect(checkDestination(url, { allowLoopback: true }).ok).toBe(true);
  });

  it.each([
    "http://10.0.0.5:11434/v1",
    "http://192.168.1.20:1234/v1",
    "http://169.254.169.254/latest/meta-data",
    "http://[::ffff:10.0.0.1]/",
    "http://0.0.0.0:11434/v1",
    "http://intranet.local/v1",
    "file:///etc/passwd",
    "http://user:pass@localhost:11434/v1",
  ])("still refuses %s: the allowance is loopback only", (url) => {
    expect(checkDestination(url, { allowLoopback: true }).ok).toBe(false);
  });
});

describe("MODEL_ALLOW_LOOPBACK", () => {
  it("is on only for the exact value true", () => {
    expect(modelLoopbackAllowed({})).toBe(false);
    expect(modelLoopbackAllowed({ MODEL_ALLOW_LOOPBACK: "1" })).toBe(false);
    expect(modelLoopbackAllowed({ MODEL_ALLOW_LOOPBACK: "yes" })).toBe(false);
    expect(modelLoopbackAllowed({ MODEL_ALLOW_LOOPBACK: "true" })).toBe(true);
  });

  it("decides whether a tenant may point its model at this machine, and says how to allow it", () => {
    const override = { baseUrl: "http://localhost:11434/v1", apiKey: "ollama", model: "llama3.2" };
    expect(overrideProblem({} as Env, override)).toMatch(/MODEL_ALLOW_LOOPBACK=true/);
    expect(overrideProblem({ MODEL_ALLOW_LOOPBACK: "true" } as Env, override)).toBeUndefined();
    const privateAddress = { ...override, baseUrl: "http://10.0.0.5/v1" };
    expect(overrideProblem({ MODEL_ALLOW_LOOPBACK: "true" } as Env, privateAddress)).toMatch(/private/);
    expect(overrideProblem({} as Env, privateAddress)).not.toMatch(/MODEL_ALLOW_LOOPBACK/);
  });
});
