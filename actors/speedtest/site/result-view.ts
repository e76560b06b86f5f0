// How a saved result reads, in the page at /r/<id> and in its picture at /r/<id>.svg: the figures as
// text, with the same units and rounding as the test page.
import { uses, type Use, type UseGrade } from './grades.js';
import type { SavedResult } from './result.js';

export const mbpsText = (bitsPerSecond: number) => (bitsPerSecond / 1e6).toFixed(2);
export const msText = (ms: number) => ms.toFixed(1);
export const lossText = (percent: number) => `${percent.toFixed(1)} %`;

export const useNames: Record<Use, string> = { streaming: 'Streaming', gaming: 'Gaming', calls: 'Calls' };
export const gradeNames: Record<UseGrade, string> = { good: 'good', fair: 'fair', poor: 'poor' };

/** `2026-12-02 01:15 UTC` */
export function savedAtText(at: string): string {
  return `${at.slice(0, 10)} ${at.slice(11, 16)} UTC`;
}

/** The worse loaded median, as the grades read it, or undefined when neither was measured. */
export function loadedText(result: SavedResult): string {
  const down = result.download_loaded_latency_ms;
  const up = result.upload_loaded_latency_ms;
  const part = (name: string, value: number | null) => `${name} ${value === null ? 'no answer' : `${msText(value)} ms`}`;
  return `${part('download', down)} · ${part('upload', up)}`;
}

export function gradesText(result: SavedResult): string {
  return uses.map((use) => `${useNames[use]} ${gradeNames[result.grades[use]]}`).join(' · ');
}

/** Escapes text for HTML and XML, attribute values included. */
export function escapeMarkup(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
