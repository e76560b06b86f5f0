// The hosts of an expanded row: the deployment in words, then each host that reports on the domain
// (name, address seen, the certificate's fingerprint, served since, last report, agent and version)
// with what makes it stale: an older certificate, a reload that failed (its exit code and last
// lines), silence past its next check, or what certhub's own probe saw at the host's address. With
// probes on, each host shows its last probe: the certificate presented, or why the handshake failed. Remove asks first (confirm-dialog.ts); certhub audits it.
import { deploymentWords, type DomainDetail, type HostView, type ProbeResult } from '../browser.js';
import { element } from '../../../ui/common/dom.js';
import { messageOf } from '../../../ui/common/errors.js';
import { removeHost } from './api.js';
import { confirmInDialog } from './confirm-dialog.js';
import { dateTime } from './format.js';

/** The fingerprint as the panel shows it: its first 8 bytes, `ab:cd:…`; the whole one is the element's title. */
export function shortFingerprint(sha256: string): string {
  return `${(sha256.slice(0, 16).match(/../g) ?? []).join(':')}…`;
}

/** What makes a stale host stale, one sentence per problem. */
export function problemLines(host: HostView): string[] {
  return host.problems.map((problem) => {
    switch (problem) {
      case 'old_certificate':
        return `Serves an older certificate (valid until ${dateTime(host.not_after)})`;
      case 'reload_failed':
        return host.reload === null || host.reload.exit_code === null ? 'Reload failed' : `Reload failed with exit code ${host.reload.exit_code}`;
      case 'silent':
        return `Silent since ${dateTime(host.last_report_at)}: its check due ${dateTime(host.next_check_at)} did not report`;
      case 'probe_old_certificate':
        return `A probe of ${host.probe?.address ?? host.address} sees another certificate than the newest, whatever the agent reports`;
      case 'probe_failed':
        return `A probe of ${host.probe?.address ?? host.address} cannot complete a handshake: ${host.probe?.error ?? ''}`;
      default:
        throw new Error(`unknown host problem ${JSON.stringify(problem satisfies never)}`);
    }
  });
}

/** The last probe in a few words: what it saw at which address, and when. */
export function probeWords(probe: ProbeResult): string | HTMLElement {
  if (probe.sha256 === null) return `${probe.address}: ${probe.error ?? 'failed'}, ${dateTime(probe.at)}`;
  const words = element('span');
  const fingerprint = element('code', '', shortFingerprint(probe.sha256));
  fingerprint.title = probe.sha256;
  words.append(`${probe.address}: `, fingerprint, `, ${dateTime(probe.at)}`);
  return words;
}

export class HostsView {
  /** The deployment in words, the value of the details' Hosts fact. */
  readonly summary = element('dd', 'hosts-summary');
  /** The list of hosts and what Remove said, below the facts. */
  readonly node = element('section', 'hosts');
  private readonly list = element('ul', 'host-list');
  private readonly said = element('p', 'hosts-said');

  /** `removed`: a host was removed; the details read the domain again. */
  constructor(
    private readonly domain: string,
    private readonly removed: () => void,
  ) {
    this.node.setAttribute('aria-label', `Hosts of ${domain}`);
    this.node.hidden = true;
    this.said.setAttribute('role', 'status');
    this.said.hidden = true;
    this.node.append(this.list, this.said);
  }

  show(detail: DomainDetail): void {
    const { deployment, hosts } = detail;
    this.summary.textContent = deploymentWords(deployment);
    this.summary.dataset.deployment = deployment.unserved ? 'stale' : deployment.state;
    this.list.replaceChildren(...hosts.map((host) => this.item(host)));
    this.node.hidden = hosts.length === 0 && this.said.hidden;
  }

  private item(host: HostView): HTMLElement {
    const item = element('li', 'host');
    item.dataset.state = host.state;
    item.dataset.id = host.id;
    const head = element('div', 'host-head');
    const name = element('strong', 'host-name', host.name);
    const state = element('span', 'host-state', host.state);
    const remove = element('button', 'button-quiet', 'Remove…');
    remove.type = 'button';
    remove.setAttribute('aria-label', `Remove host ${host.name} of ${this.domain}`);
    remove.addEventListener('click', () => this.remove(host));
    head.append(name, state, remove);

    const facts = element('dl', 'host-facts');
    const fingerprint = element('code', '', shortFingerprint(host.sha256));
    fingerprint.title = host.sha256;
    const fact = (term: string, value: string | HTMLElement) => {
      const pair = element('div');
      const dd = element('dd');
      dd.append(value);
      pair.append(element('dt', '', term), dd);
      facts.append(pair);
    };
    fact('Address', host.address);
    fact('Certificate', fingerprint);
    fact('Served since', dateTime(host.served_since));
    fact('Last report', dateTime(host.last_report_at));
    fact('Agent', `${host.agent} ${host.agent_version}`);
    if (host.probe !== null) fact('Probe', probeWords(host.probe));
    item.append(head, facts);

    const problems = problemLines(host);
    if (problems.length > 0) {
      const list = element('ul', 'host-problems');
      list.setAttribute('aria-label', `Why ${host.name} is stale`);
      for (const line of problems) list.append(element('li', '', line));
      item.append(list);
    }
    if (host.problems.includes('reload_failed') && host.reload !== null && host.reload.output.length > 0) {
      const output = element('pre', 'host-output', host.reload.output.join('\n'));
      output.setAttribute('aria-label', `The last lines of ${host.name}'s reload`);
      output.tabIndex = 0;
      item.append(output);
    }
    return item;
  }

  private remove(host: HostView): void {
    confirmInDialog({
      title: `Remove host ${host.name}?`,
      text: `certhub forgets ${host.name} (${host.address}) as a host of ${this.domain}. Remove a host taken out of service: a report from it later adds it again.`,
      confirm: 'Remove',
      danger: true,
    }).then(
      async (confirmed) => {
        if (!confirmed) return;
        this.said.hidden = true;
        try {
          await removeHost(this.domain, host.id);
          this.said.textContent = `Host ${host.name} removed.`;
          this.said.classList.remove('form-error');
        } catch (error) {
          this.said.textContent = messageOf(error);
          this.said.classList.add('form-error');
        }
        this.said.hidden = false;
        this.node.hidden = false;
        this.removed();
      },
      () => {},
    );
  }
}
