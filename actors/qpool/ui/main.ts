// The qpool page: live pool figures from /api/status every 2 s, the running version, and a reference
// of the API with curl lines for this server. body[data-connection] says whether the figures are
// current; the stylesheet dims them when they are not.
import { byId } from '../../../ui/common/dom.js';
import { fetchStatus, fetchVersion, type StatusReading } from './api.js';
import { ConnectionView } from './connection.js';
import { pollEvery } from './poll.js';
import { PoolPanel } from './pool-panel.js';
import { renderReference } from './reference.js';

const pollMs = 2000;

const versionLabel = byId('version');
const demoBanner = byId('demo-banner');
const connection = new ConnectionView();
const pool = new PoolPanel();
let versionKnown = false;

renderReference(byId('endpoints'), byId('base-url'), location.origin);

/** Asked again after every outage too: a server that comes back may be a newer build. */
function refreshVersion(): void {
  fetchVersion().then(
    (info) => {
      versionKnown = true;
      versionLabel.textContent = info.version;
      document.title = `${info.product} ${info.version}`;
    },
    () => {
      // The next successful poll asks again.
      versionKnown = false;
    },
  );
}

function show(reading: StatusReading): void {
  const now = new Date();
  if (!versionKnown || document.body.dataset.connection !== 'live') refreshVersion();
  connection.live(now);
  pool.update(reading.status, now.getTime());
  demoBanner.hidden = !reading.demo;
}

pollEvery(pollMs, fetchStatus, {
  result: show,
  failure(error) {
    connection.failed(error, pollMs);
  },
});
