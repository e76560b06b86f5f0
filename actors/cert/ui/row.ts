// One domain's line in the list: its checkbox, its name (the button that expands it), its status (with
// the reason of an error), its hosts (`3 hosts: all current`, `1 of 3 stale`) and its expiry. Built once per domain on screen and updated in place when
// the server pushes a change, so focus and a half-typed target survive a live update.
import { deploymentWords, type DomainSummary } from '../browser.js';
import { staleHosts } from './model.js';
import { element } from '../../../ui/common/dom.js';
import { shortDate } from './format.js';

export class RowView {
  readonly node = element('li', 'row');
  readonly checkbox = element('input');
  readonly toggle = element('button', 'row-name');
  private readonly status = element('span', 'status');
  private readonly reason = element('span', 'status-reason');
  private readonly expires = element('span', 'row-expires');
  private readonly cellStatus = element('span', 'row-status');
  /** The deployment in words, and shorter for a phone's narrow column. */
  private readonly hosts = element('span', 'row-hosts');
  private readonly hostsWords = element('span', 'hosts-words');
  private readonly hostsShort = element('span', 'hosts-short');
  private shown: DomainSummary | undefined;

  constructor(domain: DomainSummary) {
    const main = element('div', 'row-main');
    this.checkbox.type = 'checkbox';
    this.checkbox.className = 'row-check';
    this.toggle.type = 'button';
    this.toggle.setAttribute('aria-expanded', 'false');
    this.cellStatus.append(this.status, this.reason);
    this.hosts.append(this.hostsWords, this.hostsShort);
    main.append(this.checkbox, this.toggle, this.cellStatus, this.hosts, this.expires);
    this.node.append(main);
    this.node.dataset.name = domain.name;
    // The label carries the name; the base domain, the same on every row, gives way on a phone.
    this.toggle.append(element('span', 'row-label', domain.label), element('span', 'row-suffix', domain.name.slice(domain.label.length)));
    this.toggle.setAttribute('aria-label', domain.name);
    this.checkbox.setAttribute('aria-label', `Select ${domain.name}`);
    this.update(domain);
  }

  update(domain: DomainSummary): void {
    if (this.shown === domain) return;
    this.shown = domain;
    this.node.dataset.status = domain.status;
    this.status.textContent = domain.status;
    this.reason.textContent = domain.status === 'error' && domain.error !== null ? domain.error : '';
    this.cellStatus.title = this.reason.textContent;
    this.expires.textContent = shortDate(domain.expires_at);
    const { deployment } = domain;
    this.node.dataset.deployment = staleHosts(domain) ? 'stale' : deployment.state;
    this.hostsWords.textContent = deployment.state === 'none' ? '' : deploymentWords(deployment);
    this.hostsShort.textContent =
      deployment.state === 'none'
        ? ''
        : deployment.stale > 0
          ? `${deployment.stale}/${deployment.hosts} stale`
          : deployment.unserved
            ? 'unserved'
            : `${deployment.hosts} current`;
    this.hosts.title = this.hostsWords.textContent;
  }

  setSelected(selected: boolean): void {
    if (this.checkbox.checked !== selected) this.checkbox.checked = selected;
  }

  setExpanded(expanded: boolean): void {
    this.toggle.setAttribute('aria-expanded', String(expanded));
    this.node.classList.toggle('expanded', expanded);
  }
}
