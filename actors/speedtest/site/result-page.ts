// The page of a saved result (/r/<id>): its figures and grades, its picture to post elsewhere, and the
// server's latest results. Made on the server as plain HTML with the test page's stylesheet: no script,
// so it passes the content security policy every page has (src/http/security-headers.ts) as it is.
import { uses } from './grades.js';
import type { SavedResult } from './result.js';
import { escapeMarkup as escape, gradeNames, gradesText, loadedText, lossText, mbpsText, msText, savedAtText, useNames } from './result-view.js';

const sources = { page: 'the browser page', client: 'the terminal client' } as const;

/** The test page's icon (ui/index.html): a page without one has the browser ask for /favicon.ico. */
const icon =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' height='32' rx='7' fill='%23121a24'/%3E%3Cpath d='M7 22a10 10 0 1 1 18 0' fill='none' stroke='%2356d4dd' stroke-width='2.5' stroke-linecap='round'/%3E%3Cpath d='M16 19l5-7' stroke='%23e6edf3' stroke-width='2.5' stroke-linecap='round'/%3E%3C/svg%3E";

export function resultPage(result: SavedResult, recent: readonly SavedResult[], stylesheet: string | undefined): string {
  const figure = (kind: string, name: string, value: string, unit: string, caption: string) =>
    `<div class="result result-${kind}"><p class="result-name">${name}</p><p class="result-figure"><span class="result-value">${value}</span><span class="result-unit">${unit}</span></p><p class="result-caption">${caption}</p></div>`;
  const grades = uses
    .map(
      (use) => `<li class="use-grade" data-grade="${result.grades[use]}"><span>${useNames[use]}</span> <strong>${gradeNames[result.grades[use]]}</strong></li>`,
    )
    .join('');
  const rows = recent
    .map(
      (other) =>
        `<tr${other.id === result.id ? ' aria-current="page"' : ''}><td><a href="${other.id}">${escape(savedAtText(other.at))}</a></td><td>${mbpsText(other.download_bps)}</td><td>${mbpsText(other.upload_bps)}</td><td>${msText(other.ping_ms)}</td><td>${lossText(other.loss_percent)}</td></tr>`,
    )
    .join('');
  const summary = `${mbpsText(result.download_bps)} Mbps down, ${mbpsText(result.upload_bps)} Mbps up, ping ${msText(result.ping_ms)} ms`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="color-scheme" content="dark" />
<title>${escape(summary)} · ${escape(result.server_name)} · netspeed</title>
<meta name="description" content="${escape(`${summary}; ${gradesText(result)}`)}" />
<meta property="og:title" content="${escape(`netspeed: ${summary}`)}" />
<meta property="og:image" content="${result.id}.svg" />
<link rel="icon" href="${icon}" />
${stylesheet === undefined ? '' : `<link rel="stylesheet" href="../${stylesheet.replace(/^\//, '')}" />`}
</head>
<body class="saved-page" data-phase="done">
<header class="topbar"><div class="brand"><div><p class="brand-name">netspeed</p><h1>${escape(result.server_name)}</h1></div></div><p class="server-address"><a href="../">Run a test</a></p></header>
<main class="saved-stage">
<section class="panel summary" aria-labelledby="saved-title">
<div class="panel-head"><h2 id="saved-title" class="panel-title">Saved result</h2><time class="muted" datetime="${escape(result.at)}">${escape(savedAtText(result.at))}</time></div>
<div class="results">
${figure('download', 'Download', mbpsText(result.download_bps), 'Mbps', 'throughput')}
${figure('upload', 'Upload', mbpsText(result.upload_bps), 'Mbps', 'throughput')}
${figure('ping', 'Ping', msText(result.ping_ms), 'ms', `jitter ${msText(result.jitter_ms)} ms`)}
${figure('jitter', 'Loss', result.loss_percent.toFixed(1), '%', 'pings not answered within 1 s')}
</div>
<div class="loaded"><h3 class="panel-subtitle">Latency under load</h3><p class="result-caption">${escape(loadedText(result))}</p>
<h3 class="panel-subtitle uses-title">Good for</h3><ul class="use-grades" aria-label="Good for">${grades}</ul></div>
<p class="muted">Measured by ${sources[result.source]}.</p>
<figure class="saved-picture"><img src="${result.id}.svg" alt="${escape(summary)}" width="1200" height="630" /><figcaption><a href="${result.id}.svg">The picture (SVG)</a> to post with the link of this page.</figcaption></figure>
</section>
<section class="panel history" aria-labelledby="history-title">
<h2 id="history-title" class="panel-title">Latest results on this server</h2>
<table class="history-table"><thead><tr><th>Saved</th><th>Down, Mbps</th><th>Up, Mbps</th><th>Ping, ms</th><th>Loss</th></tr></thead><tbody>${rows}</tbody></table>
</section>
</main>
</body>
</html>
`;
}
