// The certhub admin panel: log in with the admin key, then the Domains, Logs and Audit tabs. A session that
// ends (expiry, logout elsewhere, a server restart) brings the login back over the page as it is.
import { byId } from '../../../ui/common/dom.js';
import { offerProfiles } from './add-form.js';
import { loadPrefs, logout, onSessionLost, sessionState } from './api.js';
import { startDomains } from './domains.js';
import { startAudit } from './audit.js';
import { startLogs } from './logs.js';
import { adopt } from './prefs.js';
import { showServerInfo } from './server-info.js';
import { askForKey } from './session.js';

const tabs = [
  { tab: byId<HTMLButtonElement>('tab-domains'), panel: byId('domains-panel') },
  { tab: byId<HTMLButtonElement>('tab-logs'), panel: byId('logs-panel') },
  { tab: byId<HTMLButtonElement>('tab-audit'), panel: byId('audit-panel') },
];

onSessionLost((why) => askForKey(why));

function select(index: number): void {
  tabs.forEach(({ tab, panel }, position) => {
    const selected = position === index;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
    panel.hidden = !selected;
  });
  if (index === 1) startLogs();
  if (index === 2) startAudit();
}

tabs.forEach(({ tab }, index) => {
  tab.addEventListener('click', () => select(index));
  // Arrow keys move between tabs, as in any tab list (WAI-ARIA authoring practices).
  tab.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    const next = (index + (event.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length;
    select(next);
    tabs[next]?.tab.focus();
  });
});

byId('logout').addEventListener('click', () => {
  void logout().then(() => location.reload());
});

async function start(): Promise<void> {
  const session = await sessionState();
  // Before the login dialog: a newcomer learns it is a demo, and where its admin key was printed.
  byId('demo-notice').hidden = !session.demo;
  if (!session.active) await askForKey('start');
  document.body.dataset.session = 'in';
  void showServerInfo();
  void offerProfiles();
  // Prefs that cannot be read leave the defaults (Name, no filter): the list must show regardless.
  startDomains(
    loadPrefs().then(adopt, () => {
      document.body.dataset.prefs = 'unread';
    }),
  );
}

void start();
