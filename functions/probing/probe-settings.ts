import type { ProbeOptions } from "./probe-types";

/** How much a chain-of-probing pass may try (ProbingSession, probing-session.ts), as the caller asked or by default. */

const DEFAULTS = { samples: 3, iterations: 4, maxCandidates: 3, shortlistSize: 6, maxHelpers: 3 };

/** Probing's options with their defaults filled in and bounded. */
export interface ProbeSettings {
  samples: number;
  iterations: number;
  maxCandidates: number;
  shortlistSize: number;
  maxHelpers: number;
  zeroToken: boolean;
  useModel: boolean;
  describeUndocumented: boolean;
}

export function probeSettings(options: ProbeOptions): ProbeSettings {
  return {
    samples: Math.max(1, options.samples ?? DEFAULTS.samples),
    iterations: Math.max(0, options.iterations ?? DEFAULTS.iterations),
    maxCandidates: Math.max(1, options.maxCandidates ?? DEFAULTS.maxCandidates),
    shortlistSize: Math.max(1, options.shortlistSize ?? DEFAULTS.shortlistSize),
    maxHelpers: Math.max(1, options.maxHelpers ?? DEFAULTS.maxHelpers),
    zeroToken: options.zeroToken ?? true,
    useModel: options.useModel ?? true,
    describeUndocumented: options.describeUndocumented === true,
  };
}
