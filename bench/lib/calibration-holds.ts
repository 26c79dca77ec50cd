/**
 * How long the tenant's signal calibration holds its object (tmdb-folds `--profile`): from a V8
 * CPU profile of the isolate over one alarm slice, the CPU the calibration used and its longest
 * unbroken stretch — consecutive samples with the calibration on the stack, ended by any other
 * sample (a request served, idle, or garbage collection, which holds every request whoever
 * caused it). Between two pieces of a slice with no request waiting, no sample may fall, so a
 * stretch can span several pieces: an upper bound of a piece.
 * Sampled on the isolate's own clock, so a loaded machine that deschedules workerd does not
 * lengthen it, as it lengthens wall times seen from Node.
 */
import { analyse, type Profile } from "./cpu-profile";
import { COST_PARTS } from "./conversation-cost";

export interface CalibrationHold {
  /** CPU with the calibration on the stack, ms. */
  cpuMs: number;
  /** The longest run of consecutive calibration samples, ms. */
  longestMs: number;
}

/** The calibration's CPU and longest stretch in `profile`, sampled every `interval` µs. */
export function calibrationHold(profile: Profile, interval: number): CalibrationHold {
  const { period } = analyse(profile, [], interval);
  const calibration = new Set<string>(COST_PARTS.calibration);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const held = new Map<number, boolean>();
  const isCalibration = (id: number): boolean => {
    const known = held.get(id);
    if (known !== undefined) return known;
    let found = false;
    for (let at: number | undefined = id; at !== undefined && !found; at = parent.get(at)) found = calibration.has(byId.get(at)?.callFrame.functionName ?? "");
    held.set(id, found);
    return found;
  };
  let samples = 0;
  let stretch = 0;
  let longest = 0;
  for (const id of profile.samples) {
    if (!isCalibration(id)) {
      stretch = 0;
      continue;
    }
    samples += 1;
    stretch += 1;
    longest = Math.max(longest, stretch);
  }
  return { cpuMs: samples * period, longestMs: longest * period };
}
