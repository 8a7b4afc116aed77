// How a memory search orders what the text index found (FTS5 in SQLite, tsvector in PostgreSQL). Text relevance alone would let a stale, low-confidence
// note outrank a fresh, confirmed decision that says nearly the same; each factor is in [0, 1] and the
// score is their weighted sum, so it is in [0, 1] too and every result can show its parts.
//
//   score = 0.50 · relevance   the text score of this hit (−bm25 in SQLite, ts_rank in PostgreSQL) divided
//                              by the best among the candidates (1 = best text match; every hit is 1 when
//                              only substring filters matched)
//         + 0.20 · confidence  as recorded (0..1)
//         + 0.15 · recency     0.5 ^ (age in days / 30): a month-old note counts half of today's
//         + 0.10 · impact      low 0.25, medium 0.5, high 0.75, critical 1
//         + 0.05 · access      ln(1 + reads) / ln(33), capped at 1: 32 reads via cos_details saturate it
//
// Relevance dominates so that a search still answers the question asked; the rest break near-ties.
// Keep server/memory/README.md in step with these numbers.

export const WEIGHTS = {
  relevance: 0.5,
  confidence: 0.2,
  recency: 0.15,
  impact: 0.1,
  access: 0.05,
} as const;

export const RECENCY_HALF_LIFE_DAYS = 30;
export const ACCESS_SATURATION = 32;
const DAY_MS = 86_400_000;

export const IMPACT_VALUE = { low: 0.25, medium: 0.5, high: 0.75, critical: 1 } as const;
export type Impact = keyof typeof IMPACT_VALUE;

export interface RankInput {
  /** The text engine's score, higher is better (−bm25, ts_rank). Null when the row matched without one. */
  text: number | null;
  confidence: number;
  impact: Impact;
  createdAt: number;
  accessCount: number;
}

export interface ScoreParts {
  relevance: number;
  confidence: number;
  recency: number;
  impact: number;
  access: number;
}

export interface Ranked<T> {
  item: T;
  score: number;
  parts: ScoreParts;
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;

export function recency(createdAt: number, now: number): number {
  const ageDays = Math.max(0, now - createdAt) / DAY_MS;
  return 0.5 ** (ageDays / RECENCY_HALF_LIFE_DAYS);
}

export function accessFactor(count: number): number {
  return Math.min(1, Math.log1p(Math.max(0, count)) / Math.log1p(ACCESS_SATURATION));
}

/** Scores and sorts candidates, best first; ties go to the newer, then the lower id order given. */
export function rank<T>(candidates: readonly T[], view: (c: T) => RankInput, now: number): Ranked<T>[] {
  let best = 0;
  for (const c of candidates) {
    const t = view(c).text;
    if (t !== null && t > best) best = t;
  }
  const ranked = candidates.map((item) => {
    const v = view(item);
    const parts: ScoreParts = {
      relevance: v.text === null || best === 0 ? 1 : Math.max(0, v.text) / best,
      confidence: Math.min(1, Math.max(0, v.confidence)),
      recency: recency(v.createdAt, now),
      impact: IMPACT_VALUE[v.impact],
      access: accessFactor(v.accessCount),
    };
    const score =
      WEIGHTS.relevance * parts.relevance +
      WEIGHTS.confidence * parts.confidence +
      WEIGHTS.recency * parts.recency +
      WEIGHTS.impact * parts.impact +
      WEIGHTS.access * parts.access;
    return { item, score, parts, createdAt: v.createdAt };
  });
  ranked.sort((a, b) => b.score - a.score || b.createdAt - a.createdAt);
  return ranked.map(({ item, score, parts }) => ({
    item,
    score: round(score),
    parts: {
      relevance: round(parts.relevance),
      confidence: round(parts.confidence),
      recency: round(parts.recency),
      impact: round(parts.impact),
      access: round(parts.access),
    },
  }));
}
