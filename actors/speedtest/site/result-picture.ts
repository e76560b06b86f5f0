// The picture of a saved result (/r/<id>.svg): 1200 × 630, the size link previews use, dark as the
// page, with the figures in large type. Self-contained: no script, no external font or image.
import { uses } from './grades.js';
import type { SavedResult } from './result.js';
import { escapeMarkup, gradeNames, lossText, mbpsText, msText, savedAtText, useNames } from './result-view.js';

const gradeColours = { good: '#3fb950', fair: '#e3b341', poor: '#f85149' } as const;

export function resultPicture(result: SavedResult): string {
  const text = (x: number, y: number, size: number, fill: string, content: string, weight = 400, anchor = 'start') =>
    `<text x="${x}" y="${y}" font-size="${size}" font-weight="${weight}" fill="${fill}" text-anchor="${anchor}">${escapeMarkup(content)}</text>`;
  const figure = (x: number, name: string, value: string, unit: string, colour: string) =>
    [text(x, 210, 30, colour, name.toUpperCase(), 650), text(x, 300, 80, '#e6edf3', value, 700), text(x, 345, 30, '#8b949e', unit)].join('');
  const grades = uses.map((use, index) => {
    const grade = result.grades[use];
    const x = 60 + index * 370;
    return [
      `<rect x="${x}" y="490" width="340" height="72" rx="14" fill="#121a24" stroke="${gradeColours[grade]}" stroke-width="2"/>`,
      text(x + 24, 536, 28, '#e6edf3', useNames[use], 600),
      text(x + 316, 536, 28, gradeColours[grade], gradeNames[grade], 700, 'end'),
    ].join('');
  });
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630" viewBox="0 0 1200 630" font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif">',
    `<title>${escapeMarkup(`netspeed: ${mbpsText(result.download_bps)} Mbps down, ${mbpsText(result.upload_bps)} Mbps up, ping ${msText(result.ping_ms)} ms`)}</title>`,
    '<rect width="1200" height="630" fill="#0b0f14"/>',
    '<path d="M60 92a26 26 0 1 1 52 0" fill="none" stroke="#56d4dd" stroke-width="7" stroke-linecap="round"/><path d="M86 84l13-18" stroke="#e6edf3" stroke-width="7" stroke-linecap="round"/>',
    text(130, 100, 36, '#e6edf3', 'netspeed', 700),
    text(1140, 100, 28, '#8b949e', `${result.server_name} · ${savedAtText(result.at)}`, 400, 'end'),
    figure(60, 'Download', mbpsText(result.download_bps), 'Mbps', '#56d4dd'),
    figure(450, 'Upload', mbpsText(result.upload_bps), 'Mbps', '#b58cff'),
    figure(840, 'Ping', msText(result.ping_ms), 'ms', '#e3b341'),
    text(60, 430, 28, '#8b949e', `jitter ${msText(result.jitter_ms)} ms · loss ${lossText(result.loss_percent)} · under load ${loadedMs(result)}`),
    ...grades,
    '</svg>',
  ].join('');
}

function loadedMs(result: SavedResult): string {
  const loaded = [result.download_loaded_latency_ms, result.upload_loaded_latency_ms].filter((value): value is number => value !== null);
  return loaded.length === 0 ? 'no answer' : `${msText(Math.max(...loaded))} ms`;
}
