// A small chart of per-minute figures as plain inline SVG: counts as bars (a later series drawn
// over an earlier one, as failures are a part of errors), latencies as step lines on a log scale
// (the server's figures are bucket bounds from 1 ms to 10 s). Each chart is one image to
// assistive technology, named by a sentence with its figures; the page's table has the rest.

import type { TrafficMinute } from '../api/traffic';
import { clockTime } from './figures';

export interface Series {
  label: string;
  /** A class of styles.css that gives the series its colour (and dash, for lines). */
  className: string;
  value: (m: TrafficMinute) => number | null;
}

interface ChartProps {
  title: string;
  /** What the chart shows, in words (its accessible name, after the title). */
  description: string;
  minutes: readonly TrafficMinute[];
  series: readonly Series[];
  kind: 'bars' | 'lines';
}

// The drawing's own units; the SVG scales to the width of its box.
const WIDTH = 360;
const HEIGHT = 150;
const LEFT = 44;
const RIGHT = 10;
const TOP = 10;
const BOTTOM = 24;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;
const BASE = TOP + PLOT_H;
const MINUTE_MS = 60_000;

/** The smallest 1, 2 or 5 × 10ⁿ at or above `v` (at least 1), so the top tick is a round number. */
export function niceCeiling(v: number): number {
  if (v <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(v));
  for (const step of [1, 2, 5, 10]) if (step * power >= v) return step * power;
  return 10 * power;
}

interface Scale {
  ticks: number[];
  y: (v: number) => number;
  label: (v: number) => string;
}

function countScale(max: number): Scale {
  const top = niceCeiling(max);
  const ticks = top === 1 ? [0, 1] : [0, top / 2, top];
  return { ticks, y: (v) => BASE - (v / top) * PLOT_H, label: (v) => v.toLocaleString() };
}

/** Powers of ten from 1 ms up to the first at or above the largest value (at least 10 ms). */
function latencyScale(max: number): Scale {
  const top = Math.max(1, Math.ceil(Math.log10(Math.max(max, 10))));
  const ticks = Array.from({ length: top + 1 }, (_, i) => 10 ** i);
  const y = (v: number) => BASE - (Math.log10(Math.max(v, 1)) / top) * PLOT_H;
  return { ticks, y, label: (v) => (v >= 1000 ? `${v / 1000} s` : `${v} ms`) };
}

const round = (n: number) => Math.round(n * 100) / 100;

/** One path of rectangles, one per minute with a value above zero. */
function barsPath(values: readonly (number | null)[], scale: Scale): string {
  const slot = PLOT_W / Math.max(values.length, 1);
  const gap = slot > 4 ? slot * 0.2 : 0;
  const width = Math.max(slot - gap, 1);
  let d = '';
  values.forEach((v, i) => {
    if (!v || v <= 0) return;
    const x = LEFT + i * slot + gap / 2;
    d += `M${round(x)} ${BASE}V${round(scale.y(v))}H${round(x + width)}V${BASE}Z`;
  });
  return d;
}

/** A step line across each minute with a value; a minute without one (no operations) breaks it. */
function stepPath(values: readonly (number | null)[], scale: Scale): string {
  const slot = PLOT_W / Math.max(values.length, 1);
  let d = '';
  let drawing = false;
  values.forEach((v, i) => {
    if (v === null) {
      drawing = false;
      return;
    }
    const x0 = round(LEFT + i * slot);
    const x1 = round(LEFT + (i + 1) * slot);
    const y = round(scale.y(v));
    d += drawing ? `V${y}H${x1}` : `M${x0} ${y}H${x1}`;
    drawing = true;
  });
  return d;
}

export function TrafficChart({ title, description, minutes, series, kind }: ChartProps) {
  const values = series.map((s) => minutes.map((m) => s.value(m)));
  const max = Math.max(0, ...values.flat().map((v) => v ?? 0));
  const scale = kind === 'bars' ? countScale(max) : latencyScale(max);
  // The time axis runs from the first minute's start to the last one's end.
  const start = minutes[0] ? Date.parse(minutes[0].minute) : undefined;
  const at = (share: number) => clockTime(new Date((start ?? 0) + share * minutes.length * MINUTE_MS).toISOString());
  return (
    <figure className="chart">
      <figcaption className="chart-title">{title}</figcaption>
      {series.length > 1 && (
        <ul className="chart-legend" aria-hidden="true">
          {series.map((s) => (
            <li key={s.label}>
              <svg width="18" height="10" className="chart-swatch">
                {kind === 'bars' ? <rect className={`chart-bars ${s.className}`} x="2" y="1" width="14" height="8" /> : <path className={`chart-line ${s.className}`} d="M1 5H17" />}
              </svg>
              {s.label}
            </li>
          ))}
        </ul>
      )}
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`${title}. ${description}`} className="chart-svg" data-kind={kind}>
        <g className="chart-gridlines">
          {scale.ticks.map((t) => (
            <line key={t} x1={LEFT} x2={WIDTH - RIGHT} y1={round(scale.y(t))} y2={round(scale.y(t))} />
          ))}
        </g>
        {values.map((v, i) => {
          const s = series[i];
          if (!s) return null;
          return kind === 'bars' ? (
            <path key={s.label} className={`chart-bars ${s.className}`} d={barsPath(v, scale)} data-series={s.label} />
          ) : (
            <path key={s.label} className={`chart-line ${s.className}`} d={stepPath(v, scale)} data-series={s.label} />
          );
        })}
        <g className="chart-axis">
          <line className="chart-baseline" x1={LEFT} x2={WIDTH - RIGHT} y1={BASE} y2={BASE} />
          {scale.ticks.map((t) => (
            <text key={t} x={LEFT - 5} y={round(scale.y(t))} textAnchor="end" dominantBaseline="middle">
              {scale.label(t)}
            </text>
          ))}
          {start !== undefined &&
            ([0, 0.5, 1] as const).map((share) => (
              <text key={share} x={round(LEFT + share * PLOT_W)} y={HEIGHT - 6} textAnchor={share === 0 ? 'start' : share === 1 ? 'end' : 'middle'}>
                {at(share)}
              </text>
            ))}
        </g>
      </svg>
    </figure>
  );
}
