// Every site a front can serve, by kind. A new site is a folder under sites/ and one line here.
import type { Site } from '../../src/http/front-config.js';
import type { SiteDefinition } from '../../src/http/site.js';
import { certhubSite } from '../cert/site/site.js';
import { monitorSite } from '../monitor/site/site.js';
import { qpoolSite } from '../qpool/site/site.js';
import { speedtestSite } from '../speedtest/site/site.js';

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
