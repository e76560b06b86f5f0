// The four export formats of the panel, exactly as certhub-agent reads them: the JSON shapes are the
// agent's own types (actors/proxy/agent-exports.ts, through the role's browser.ts), imported as types
// only, so the page and the agent cannot disagree on a key name. Every format but the CSV (tokens and
// names only) carries the pin of the self-signed certificate the server is served with, when it is.
import type { FetchManyExport, FetchOneExport, ProxyRoutesExport } from '../../proxy/browser.js';
// A pure function with no Node module: safe in the page's bundle.
import { shellQuote } from '../../../src/cli/shell-quote.js';
import type { DomainView, Prefs } from '../browser.js';

export type ExportFormat = Prefs['export_format'];

/**
 * The backend every Proxy route gets, to be edited before use. The same value as agent-exports.ts's
 * placeholderBackend (importing the value would bundle zod into the page); the panel tests check it.
 */
const placeholderBackend = '127.0.0.1:8080';

type Exported = Pick<DomainView, 'name' | 'token'>;

export const fileNames: Record<ExportFormat, string> = {
  'fetch-json': 'certhub-fetch.json',
  'fetch-cli': 'certhub-fetch.sh',
  'proxy-json': 'certhub-proxy.json',
  csv: 'certhub-tokens.csv',
};

/** `server` is an http(s) URL; `pin` the `sha256:...` fingerprint to trust, when the server has no `tls`. */
export function exportText(format: ExportFormat, domains: readonly Exported[], typedServer: string, pin?: string): string {
  const server = normalServerUrl(typedServer);
  const pinned = pin === undefined ? {} : { pin };
  switch (format) {
    case 'fetch-json': {
      const [only] = domains;
      if (domains.length === 1 && only !== undefined) return json({ server, ...pinned, domain: only.name, token: only.token } satisfies FetchOneExport);
      return json({
        server,
        ...pinned,
        domains: Object.fromEntries(domains.map((domain) => [domain.name, { token: domain.token }])),
      } satisfies FetchManyExport);
    }
    case 'fetch-cli': {
      // Each argument quoted for a POSIX shell: a typed URL or a name must never run as a command.
      const pinArgument = pin === undefined ? [] : ['--pin', pin];
      return lines(
        domains.map((domain) => ['certhub-agent', 'fetch', '-s', server, ...pinArgument, '-t', domain.token, '-d', domain.name].map(shellQuote).join(' ')),
      );
    }
    case 'proxy-json':
      return json({
        server,
        ...pinned,
        routes: Object.fromEntries(domains.map((domain) => [domain.name, { backend: placeholderBackend, token: domain.token }])),
      } satisfies ProxyRoutesExport);
    case 'csv':
      return lines(domains.map((domain) => `${domain.token}, ${domain.name}`));
  }
}

/** The URL as the WHATWG parser normalises it (lower-case scheme and host, no default port), without a trailing slash. */
export function normalServerUrl(server: string): string {
  return new URL(server).href.replace(/\/+$/, '');
}

function json(value: FetchOneExport | FetchManyExport | ProxyRoutesExport): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function lines(list: string[]): string {
  return list.map((line) => `${line}\n`).join('');
}
