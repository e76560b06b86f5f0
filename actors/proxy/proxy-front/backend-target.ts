// A backend as a route names it: `host:port` (plain HTTP/1.1, what the certhub panel exports),
// `http://host:port` or `https://host:port`. Pure, and safe to import from the config.

export interface BackendTarget {
  scheme: 'http' | 'https';
  /** Without brackets for IPv6. */
  host: string;
  port: number;
  /** As the route writes it: what logs and the access log show. */
  label: string;
}

const targetPattern = /^(?:(https?):\/\/)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})\/?$/;

/** The target `text` names, or undefined when it is none of the three forms. */
export function parseBackendTarget(text: string): BackendTarget | undefined {
  const match = targetPattern.exec(text);
  if (match === null) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65_535) return undefined;
  const host = match[2]!;
  return { scheme: match[1] === 'https' ? 'https' : 'http', host: host.startsWith('[') ? host.slice(1, -1) : host, port, label: text };
}
