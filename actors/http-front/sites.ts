// Every site a front can serve, by kind. A new site is a folder under sites/ and one line here.
import type { Site } from './protocol.js';
import type { SiteDefinition } from './site.js';
import { certhubSite } from './sites/certhub/site.js';
import { monitorSite } from './sites/monitor/site.js';
import { qpoolSite } from './sites/qpool/site.js';
import { speedtestSite } from './sites/speedtest/site.js';

type SiteRegistry = { [Kind in Site['kind']]: SiteDefinition<Extract<Site, { kind: Kind }>> };

const sites: SiteRegistry = {
  certhub: certhubSite,
  monitor: monitorSite,
  qpool: qpoolSite,
  speedtest: speedtestSite,
};

export function siteDefinition<Config extends Site>(site: Config): SiteDefinition<Config> {
  // The registry's type pairs every kind with the definition of that kind's config.
  return sites[site.kind] as SiteDefinition<Config>;
}
