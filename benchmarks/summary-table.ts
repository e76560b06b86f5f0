// The one table of `npm run bench -- NAME --markdown`: each benchmark hands its headline figures,
// next to its anchor's, to summaryRow() as it prints its own table; run.ts renders them as one
// Markdown document (how and where it was measured, then the table), printed or written into the
// marked region of a document (`--write FILE`).
import { cpus, loadavg, release } from 'node:os';
import { commit as buildCommit } from '../src/version.js';

export interface SummaryRow {
  /** The benchmark and the figure it gives, with its setting (the load, the sizes). */
  benchmark: string;
  /** Our figure. */
  ours: string;
  /** The anchor and its setting: what the figure is measured against, in the same run. */
  anchor: string;
  anchorFigure: string;
  /** Ours against the anchor's, as the benchmark's own table gives it. */
  ratio: string;
}

/** The region of a document that `--write` replaces. */
export const tableStart = '<!-- bench-table:start -->';
export const tableEnd = '<!-- bench-table:end -->';

const rows: SummaryRow[] = [];

export function summaryRow(row: SummaryRow): void {
  rows.push(row);
}

/** A ratio as the table shows it. */
export function ratio(ours: number, anchor: number): string {
  return Number.isFinite(ours / anchor) ? (ours / anchor).toFixed(2) : '-';
}

/** A figure with thousands separators (whole numbers at 100 and above), as the benchmarks' own tables print. */
export function figure(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return '-';
  return Math.abs(value) >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(digits);
}

export interface RunSettings {
  /** The command line after `bench`. */
  command: string;
  startedAt: Date;
  loadAtStart: number;
  /** Benchmarks that did not finish, with the first line of their error. */
  failed: { name: string; reason: string }[];
  /** Benchmarks not run yet: the document is written after each benchmark, and a run may be stopped. */
  pending: string[];
}

/** The Markdown document: how the table was made, then the table. */
export function summaryDocument(settings: RunSettings): string {
  const cpu = cpus();
  const lines = [
    `Made by \`npm run bench -- ${settings.command}\` from ${settings.startedAt.toISOString().replace(/\.\d+Z$/, 'Z')} to ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}, commit ${commit()}:`,
    `${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores, Linux ${release()}, Node ${process.versions.node}, load average ${settings.loadAtStart.toFixed(1)} at the start and ${(loadavg()[0] ?? 0).toFixed(1)} at the end.`,
    '',
    "| benchmark | ours | anchor | anchor's figure | ratio |",
    '|---|---|---|---|---|',
    ...rows.map((row) => `| ${[row.benchmark, row.ours, row.anchor, row.anchorFigure, row.ratio].map(cell).join(' | ')} |`),
  ];
  if (settings.failed.length > 0) lines.push('', 'Did not finish:', '', ...settings.failed.map(({ name, reason }) => `- ${name}: ${reason}`));
  if (settings.pending.length > 0) lines.push('', `Not measured in this run: ${settings.pending.join(', ')}.`);
  return `${lines.join('\n')}\n`;
}

/**
 * `text` with the region between the markers replaced by `document`; an error when a marker is missing.
 * A marker is a line of its own: prose may name the markers inline.
 */
export function replaceTable(text: string, document: string): string {
  const start = markerLine(text, tableStart);
  const end = markerLine(text, tableEnd);
  if (start === -1 || end < start) throw new Error(`no ${tableStart} ... ${tableEnd} region, in that order`);
  return `${text.slice(0, start + tableStart.length)}\n${document}${text.slice(end)}`;
}

/** Where the line that is `marker` alone starts in `text`, or -1. */
function markerLine(text: string, marker: string): number {
  return `\n${text}\n`.indexOf(`\n${marker}\n`);
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/** The commit the measured build was made from (dist/build-info.json), shortened as `git rev-parse --short` prints it. */
function commit(): string {
  if (buildCommit === undefined) return 'unknown (not built from a git checkout)';
  const [hash = '', dirty] = buildCommit.split('-');
  return `${hash.slice(0, 7)}${dirty === undefined ? '' : `-${dirty}`}`;
}
