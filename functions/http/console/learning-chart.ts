/**
 * The learning curve as chart geometry (pure; the view draws it as SVG): per day, the share of
 * searches whose offered tools included the tool called next (a line, 0–100 %), and the
 * conversations learned from (bars, on their own scale).
 */

export interface CurveDay {
  day: string;
  searches: number;
  offeredHits: number;
  trajectories: number;
  sessions: number;
}

export interface ChartPoint {
  day: string;
  x: number;
  /** null on a day with no search followed by a call. */
  y: number | null;
  share: number | null;
  searches: number;
}

export interface ChartBar {
  day: string;
  x: number;
  y: number;
  width: number;
  height: number;
  sessions: number;
}

export interface LearningChart {
  width: number;
  height: number;
  plot: { left: number; top: number; right: number; bottom: number };
  points: ChartPoint[];
  bars: ChartBar[];
  /** The share line through the days that have one, as an SVG `points` list. */
  line: string;
  maxSessions: number;
}

const SIZE = { width: 760, height: 300 };
// The bottom 60 units hold the day labels and, below them, the legend (inside the drawing, never past its right edge).
const PLOT = { left: 56, top: 16, right: SIZE.width - 56, bottom: SIZE.height - 60 };

export function learningChart(days: readonly CurveDay[]): LearningChart {
  const span = PLOT.right - PLOT.left;
  const step = days.length <= 1 ? span : span / (days.length - 1);
  const slot = Math.min(40, span / Math.max(days.length, 1));
  const maxSessions = Math.max(1, ...days.map((d) => d.sessions));
  const xOf = (i: number): number => (days.length <= 1 ? PLOT.left + span / 2 : PLOT.left + i * step);
  const yOfShare = (share: number): number => PLOT.bottom - share * (PLOT.bottom - PLOT.top);
  const points = days.map((d, i) => {
    const share = d.searches === 0 ? null : d.offeredHits / d.searches;
    return { day: d.day, x: xOf(i), y: share === null ? null : yOfShare(share), share, searches: d.searches };
  });
  const bars = days.map((d, i) => {
    const height = (d.sessions / maxSessions) * (PLOT.bottom - PLOT.top) * 0.5;
    return { day: d.day, x: xOf(i) - slot * 0.3, y: PLOT.bottom - height, width: slot * 0.6, height, sessions: d.sessions };
  });
  const line = points.flatMap((p) => (p.y === null ? [] : [`${p.x.toFixed(1)},${p.y.toFixed(1)}`])).join(" ");
  return { ...SIZE, plot: PLOT, points, bars, line, maxSessions };
}
