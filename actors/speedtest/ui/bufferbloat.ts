// The one place that decides how alarming a latency increase under load is. The letters are those of
// Waveform's bufferbloat test, which most router forums quote; the page colours them through
// `data-level` (green, yellow, red).
export type BloatLevel = 'low' | 'medium' | 'high';

export interface BloatGrade {
  grade: 'A+' | 'A' | 'B' | 'C' | 'D' | 'F';
  level: BloatLevel;
}

export function bufferbloatGrade(increaseMs: number): BloatGrade {
  if (increaseMs < 5) return { grade: 'A+', level: 'low' };
  if (increaseMs < 30) return { grade: 'A', level: 'low' };
  if (increaseMs < 60) return { grade: 'B', level: 'medium' };
  if (increaseMs < 200) return { grade: 'C', level: 'medium' };
  if (increaseMs < 400) return { grade: 'D', level: 'high' };
  return { grade: 'F', level: 'high' };
}
