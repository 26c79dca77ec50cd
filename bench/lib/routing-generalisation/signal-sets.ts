/** Sets of fusion signals for the ablation rows. */
import { SIGNALS, type Signal } from "../../../functions/toolnet/signal-fusion";

export const only = (...signals: Signal[]): Set<Signal> => new Set(signals);
export const without = (signal: Signal): Set<Signal> => new Set(SIGNALS.filter((s) => s !== signal));
