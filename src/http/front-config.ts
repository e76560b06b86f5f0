// The http-front actor serves one site; which one is chosen by `site.kind` (see sites.ts).
import type { FrontTls } from './tls-material.js';
import type { CerthubSite } from '../../actors/cert/site/protocol.js';
import type { MonitorSite } from '../../actors/monitor/site/protocol.js';
import type { QpoolSite } from '../../actors/qpool/site/protocol.js';
import type { SpeedtestSite } from '../../actors/speedtest/site/protocol.js';

export type Site = MonitorSite | SpeedtestSite | QpoolSite | CerthubSite;

export interface HttpFrontConfig {
  host: string;
  port: number;
  site: Site;
  /** The role's `allowed_hosts`: Host names answered besides loopback ones (src/http/allowed-hosts.ts). */
  allowedHosts?: readonly string[];
  /** HTTPS with this certificate; plain HTTP without. */
  tls?: FrontTls;
}
