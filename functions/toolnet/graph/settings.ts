import { graphFailure } from "./errors";

/**
 * The two hyperparameters of dynamic construction (§3.3), set per tenant.
 * alpha: speed of updating: the slope of f(x) = αx + 1 for x ≥ 0 and the rate of e^{αx} for
 *   x < 0 (eq. 8).
 * beta: how much of the prior (static) weight w⁽⁰⁾ is kept in w = β·w⁽⁰⁾ + (1 − β)·Δw (eq. 6).
 */
export interface GraphSettings {
  readonly alpha: number;
  readonly beta: number;
}

/**
 * The paper names α and β but gives no values, so these are ours:
 * - α = 0.5: one evaluation of -3 multiplies a tool's mass by e^{-1.5} ≈ 0.22 once its score is
 *   negative, and ten +2 evaluations make its mass 11 against 1 for an unscored tool.
 * - β = 0.3: eq. 6 is a convex mix, so a transition whose prior weight is w⁽⁰⁾ = 1 keeps at least
 *   β, while a rival starts at w⁽⁰⁾ = 0 and can gain at most (1 − β). Only β < 0.5 lets a working
 *   fallback overtake a broken tool that had all the static traffic (the paper's Figure 4); 0.3
 *   leaves room for that while the prior still orders tools whose scores are equal.
 */
export const DEFAULT_SETTINGS: GraphSettings = { alpha: 0.5, beta: 0.3 };

/** Largest α accepted: beyond it e^{αx} underflows and αx + 1 overflows nothing useful. */
export const MAX_ALPHA = 10;

/** `partial` over the defaults, validated: 0 < α ≤ MAX_ALPHA and 0 ≤ β ≤ 1. */
export function resolveSettings(partial: Partial<GraphSettings> = {}): GraphSettings {
  const alpha = partial.alpha ?? DEFAULT_SETTINGS.alpha;
  const beta = partial.beta ?? DEFAULT_SETTINGS.beta;
  if (!Number.isFinite(alpha) || alpha <= 0 || alpha > MAX_ALPHA) {
    throw graphFailure({ code: "invalid_settings", message: `alpha must be in (0, ${MAX_ALPHA}]; got ${alpha}.` });
  }
  if (!Number.isFinite(beta) || beta < 0 || beta > 1) {
    throw graphFailure({ code: "invalid_settings", message: `beta must be in [0, 1]; got ${beta}.` });
  }
  return { alpha, beta };
}
