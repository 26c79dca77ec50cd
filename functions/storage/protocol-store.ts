import { z } from "zod";
import { Failure } from "../common/failures";
import { DemonstrationSchema } from "../prompt-play/types";
import { ToolName } from "../tools/definition";
import { ProbedProtocol } from "../probing/protocol";

/**
 * The documented protocols of a tenant's tools in KV (`PROTOCOLS`; see docs/storage.md): the only
 * module that knows the keys, the shape of a stored value and how to read and write one. Values
 * are immutable and written before the tenant object points at them; every value read is parsed,
 * and one that does not parse is reported (logged, and returned as `malformed`), never used.
 */

/** What a Play2Prompt job (§2) found for the tool, kept with the protocol version it produced. */
export const ProtocolOptimization = z
  .object({
    jobId: z.string().min(1),
    /** Fraction of the demonstrations solved with the best description, and with the original. */
    score: z.number().nullable(),
    originalScore: z.number().nullable(),
    originalDescription: z.string(),
    demonstrations: z.array(DemonstrationSchema),
  })
  .strict();
export type ProtocolOptimization = z.infer<typeof ProtocolOptimization>;

/**
 * A protocol after prompt optimisation: the probed protocol (when the tool had one for this
 * definition) with the optimised description and, when demonstrations were found, the best as
 * its example.
 */
export const OptimizedProtocol = ProbedProtocol.partial()
  .extend({
    name: ToolName,
    definitionHash: ProbedProtocol.shape.definitionHash,
    description: z.string(),
    descriptionSource: z.literal("optimized"),
    // Without the defaults of a probed protocol: a tool never probed has no helpers or samples.
    helpers: ProbedProtocol.shape.helpers.removeDefault().optional(),
    samples: ProbedProtocol.shape.samples.removeDefault().optional(),
    optimization: ProtocolOptimization,
  })
  .strict();
export type OptimizedProtocol = z.infer<typeof OptimizedProtocol>;

/** A stored protocol value: probed (chain of probing, §4) or optimised (Play2Prompt), told apart by `descriptionSource`. */
export const StoredProtocol = z.discriminatedUnion("descriptionSource", [ProbedProtocol, OptimizedProtocol]);
export type StoredProtocol = z.infer<typeof StoredProtocol>;

/** A stored value as read: found and parsed, absent, or present but unusable (`problem` says why). */
export type ProtocolRead = { status: "found"; protocol: StoredProtocol } | { status: "missing" } | { status: "malformed"; problem: string };

/** The two KV calls the store makes; `KVNamespace` has them. */
export interface ProtocolKv {
  get(key: string): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
}

const PREFIX = "protocol";
const MAX_PROBLEM_CHARS = 500;

function segment(kind: string, value: string): string {
  // A `/` in a segment would let one (tenant, tool) pair name another's key.
  if (value === "" || value.includes("/")) throw new Failure("internal", `A protocol key's ${kind} must be non-empty and hold no "/".`);
  return value;
}

/** One tenant's protocol values. */
export class ProtocolStore {
  readonly #kv: ProtocolKv;
  readonly #tenantId: string;

  constructor(kv: ProtocolKv, tenantId: string) {
    this.#kv = kv;
    this.#tenantId = segment("tenant", tenantId);
  }

  /** `protocol/<tenant>/<tool>/<definition hash>`: the probed protocol of one definition of a tool. */
  probedKey(tool: string, hash: string): string {
    return `${PREFIX}/${this.#tenantId}/${segment("tool", tool)}/${segment("definition hash", hash)}`;
  }

  /** `…/<definition hash>/optimized/<job id>`: the protocol a Play2Prompt job made for that definition. */
  optimizedKey(tool: string, hash: string, jobId: string): string {
    return `${this.probedKey(tool, hash)}/optimized/${segment("job id", jobId)}`;
  }

  /** The key a value is stored under: its tool and definition, and the job for an optimised one. */
  keyOf(protocol: StoredProtocol): string {
    return protocol.descriptionSource === "optimized"
      ? this.optimizedKey(protocol.name, protocol.definitionHash, protocol.optimization.jobId)
      : this.probedKey(protocol.name, protocol.definitionHash);
  }

  /** Check and store a value; returns its key, for the tenant object's version pointer. */
  async write(protocol: StoredProtocol): Promise<string> {
    const checked = StoredProtocol.safeParse(protocol);
    if (!checked.success)
      throw new Failure("internal", `The protocol of ${protocol.name} was not stored: it does not match the stored shape (${describe(checked.error)}).`);
    const key = this.keyOf(checked.data);
    await this.#kv.put(key, JSON.stringify(checked.data));
    return key;
  }

  /** Read the value a version pointer names; only this tenant's keys are read. */
  async read(key: string): Promise<ProtocolRead> {
    if (!key.startsWith(`${PREFIX}/${this.#tenantId}/`))
      throw new Failure("internal", `A protocol pointer of tenant ${this.#tenantId} names a key outside its own.`);
    const text = await this.#kv.get(key);
    if (text === null) return { status: "missing" };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return malformed(key, "the value is not JSON");
    }
    const parsed = StoredProtocol.safeParse(json);
    if (!parsed.success) return malformed(key, describe(parsed.error));
    if (this.keyOf(parsed.data) !== key)
      return malformed(key, `the value is for ${parsed.data.name} at definition ${parsed.data.definitionHash}, not for this key`);
    return { status: "found", protocol: parsed.data };
  }

  /** The found values of these version pointers by tool; missing and malformed ones are left out (malformed ones reported). */
  async readAll(pointers: readonly { tool: string; kvKey: string }[]): Promise<Map<string, StoredProtocol>> {
    const reads = await Promise.all(pointers.map(async (p) => [p.tool, await this.read(p.kvKey)] as const));
    return new Map(reads.flatMap(([tool, read]) => (read.status === "found" ? [[tool, read.protocol] as const] : [])));
  }
}

/** The protocol store of one tenant, on the service's `PROTOCOLS` namespace. */
export function protocolStore(env: { PROTOCOLS: ProtocolKv }, tenantId: string): ProtocolStore {
  return new ProtocolStore(env.PROTOCOLS, tenantId);
}

function describe(error: z.ZodError): string {
  return z.prettifyError(error).replace(/\s+/g, " ").slice(0, MAX_PROBLEM_CHARS);
}

function malformed(key: string, problem: string): ProtocolRead {
  // Reported where operators look; the reader decides what the tenant sees (an error, or the registered documentation).
  console.error(`stored protocol ${key} is malformed and was not used: ${problem}`);
  return { status: "malformed", problem };
}
