// The http-front actor serves one role's site; which one is chosen by `site.kind`.

export interface MonitorSite {
  kind: 'monitor';
  /** The sampler actor to ask for snapshots. */
  sampler: string;
  /** How often the sampler pushes a snapshot while someone watches. */
  intervalMs: number;
}

export type Site = MonitorSite;

export interface HttpFrontConfig {
  host: string;
  port: number;
  site: Site;
}
