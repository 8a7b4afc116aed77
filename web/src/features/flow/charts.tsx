// Three small SVG charts for the retro: throughput bars, a cycle-time scatter and a cumulative flow
// diagram. Hand-drawn in SVG: each is a few dozen lines, follows the theme through CSS variables and
// stays readable to a screen reader (every chart has a title and a table of its numbers beside it).
import type { Retro } from './api.ts';

const W = 520;
const H = 200;
const PAD = { left: 48, right: 10, top: 12, bottom: 30 };
const DOT_R = 4;

/** Status colours of the cumulative flow, finished work at the bottom. */
export const FLOW_ORDER = ['complete', 'testing', 'in_progress', 'blocked', 'emergency', 'icebox'] as const;
const FLOW_COLOUR: Record<(typeof FLOW_ORDER)[number], string> = {
  complete: 'var(--ok)',
  testing: '#8a4fd1',
  in_progress: 'var(--accent)',
  blocked: 'var(--error)',
  emergency: 'var(--warn)',
  icebox: 'var(--muted)',
};

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return Math.ceil(v / p) * p;
}

/**
 * A count axis (tasks) has whole ticks only: half a task is no value. Hours may be fractional.
 */
function Axis({
  max,
  unit,
  whole = false,
  format = (v) => String(Math.round(v * 10) / 10),
}: {
  max: number;
  unit: string;
  whole?: boolean;
  format?: (v: number) => string;
}) {
  const ticks = whole && max % 2 !== 0 ? [0, max] : [0, max / 2, max];
  const y = (v: number) => PAD.top + (H - PAD.top - PAD.bottom) * (1 - v / max);
  return (
    <g className="chart-axis">
      {ticks.map((t) => (
        <g key={t}>
          <line x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} />
          <text x={PAD.left - 4} y={y(t) + 4} textAnchor="end">
            {format(t)}
            {t === max ? unit : ''}
          </text>
        </g>
      ))}
    </g>
  );
}

export interface Bar {
  /** The ISO week (2026-W49). */
  week: string;
  value: number;
  title: string;
}

/** Bars per week (tasks completed, dollars spent): one chart, two uses. */
export function WeekBars({
  bars,
  title,
  id,
  unit = '',
  whole = false,
  format,
}: {
  bars: readonly Bar[];
  title: string;
  id: string;
  unit?: string;
  whole?: boolean;
  format?: (v: number) => string;
}) {
  const max = niceMax(Math.max(...bars.map((b) => b.value), whole ? 1 : 0));
  const inner = W - PAD.left - PAD.right;
  const bw = inner / Math.max(1, bars.length);
  const h = H - PAD.top - PAD.bottom;
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="chart" role="img" aria-labelledby={id}>
      <title id={id}>{title}</title>
      <Axis max={max} unit={unit} whole={whole} {...(format ? { format } : {})} />
      {bars.map((b, i) => (
        <g key={b.week}>
          <rect
            className="chart-bar"
            x={PAD.left + i * bw + bw * 0.15}
            width={bw * 0.7}
            y={PAD.top + h * (1 - b.value / max)}
            height={h * (b.value / max)}
          >
            <title>{b.title}</title>
          </rect>
          <text className="chart-label" x={PAD.left + i * bw + bw / 2} y={H - 10} textAnchor="middle">
            {b.week.slice(5)}
          </text>
        </g>
      ))}
    </svg>
  );
}

export function ThroughputChart({ throughput }: { throughput: Retro['throughput'] }) {
  return (
    <WeekBars
      id="throughput-title"
      title="Tasks completed per week"
      whole
      bars={throughput.map((t) => ({ week: t.week, value: t.completed, title: `${t.week}: ${t.completed}` }))}
    />
  );
}

export function CycleScatter({ retro }: { retro: Retro }) {
  const points = retro.completions.filter((c) => c.cycle_hours !== null);
  const from = Date.parse(retro.from);
  const to = Date.parse(retro.to);
  const max = niceMax(Math.max(...points.map((p) => p.cycle_hours ?? 0), 1));
  // Dots keep a radius and a little air from the frame, so one finished today is not cut at the edge.
  const inset = DOT_R + 2;
  const x = (t: number) =>
    PAD.left + inset + ((t - from) / Math.max(1, to - from)) * (W - PAD.left - PAD.right - 2 * inset);
  const y = (v: number) => PAD.top + (H - PAD.top - PAD.bottom) * (1 - v / max);
  const p85 = retro.cycle_time.all.p85_hours;
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="chart" role="img" aria-labelledby="cycle-title">
      <title id="cycle-title">Cycle time of each completed task, in hours, by completion date</title>
      <Axis max={max} unit=" h" />
      {p85 !== null ? (
        <g className="chart-p85">
          <line x1={PAD.left} x2={W - PAD.right} y1={y(p85)} y2={y(p85)} />
          <text x={PAD.left + 4} y={y(p85) - 4}>
            p85 {p85} h
          </text>
        </g>
      ) : null}
      {points.map((p) => (
        <circle
          key={p.id}
          className="chart-dot"
          cx={x(Date.parse(p.completed))}
          cy={y(p.cycle_hours ?? 0)}
          r={DOT_R}
        >
          <title>{`${p.id} (${p.kind}): ${p.cycle_hours} h`}</title>
        </circle>
      ))}
      <text className="chart-label" x={PAD.left} y={H - 10}>
        {retro.from.slice(0, 10)}
      </text>
      <text className="chart-label" x={W - PAD.right} y={H - 10} textAnchor="end">
        {retro.to.slice(0, 10)}
      </text>
    </svg>
  );
}

export function CumulativeFlow({ flow }: { flow: Retro['flow'] }) {
  const totals = flow.map((d) => FLOW_ORDER.reduce((n, s) => n + (d.counts[s] ?? 0), 0));
  const max = niceMax(Math.max(...totals, 1));
  const n = Math.max(1, flow.length - 1);
  const x = (i: number) => PAD.left + (i / n) * (W - PAD.left - PAD.right);
  const y = (v: number) => PAD.top + (H - PAD.top - PAD.bottom) * (1 - v / max);
  const below = flow.map(() => 0);
  const bands = FLOW_ORDER.map((status) => {
    const lower = [...below];
    flow.forEach((d, i) => {
      below[i] = (below[i] ?? 0) + (d.counts[status] ?? 0);
    });
    const top = flow.map((_, i) => `${x(i)},${y(below[i] ?? 0)}`);
    const bottom = flow.map((_, i) => `${x(i)},${y(lower[i] ?? 0)}`).reverse();
    return { status, points: [...top, ...bottom].join(' ') };
  });
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="chart" role="img" aria-labelledby="cfd-title">
      <title id="cfd-title">Cumulative flow: tasks in each status at the end of each day</title>
      <Axis max={max} unit="" whole />
      {bands.map((b) => (
        <polygon key={b.status} points={b.points} fill={FLOW_COLOUR[b.status]} fillOpacity={0.75}>
          <title>{b.status}</title>
        </polygon>
      ))}
      {flow.length > 0 ? (
        <>
          <text className="chart-label" x={PAD.left} y={H - 10}>
            {flow[0]?.day}
          </text>
          <text className="chart-label" x={W - PAD.right} y={H - 10} textAnchor="end">
            {flow[flow.length - 1]?.day}
          </text>
        </>
      ) : null}
    </svg>
  );
}

export function FlowLegend() {
  return (
    <ul className="chart-legend">
      {FLOW_ORDER.map((s) => (
        <li key={s}>
          <span className="chart-swatch" style={{ background: FLOW_COLOUR[s] }} /> {s.replace('_', ' ')}
        </li>
      ))}
    </ul>
  );
}
