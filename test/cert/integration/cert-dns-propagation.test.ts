// The authoritative check against real PowerDNS servers: it waits until every server answers the value,
// gives up with the servers and what they answered, follows a CNAME on _acme-challenge, and reads
// answers too large for UDP over TCP.
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import test from 'ava';
import { decode } from 'dns-packet';
import { createDnsProvider } from '../../../actors/cert/dns/providers/create.js';
import { queryNameserver, txtValue } from '../../../actors/cert/acme/dns-query.js';
import { AuthoritativeDns } from '../../../actors/cert/acme/propagation.js';
import { withPowerDns } from '../../helpers/cert-stack.js';
import { startDnsGate } from '../helpers/dns-gate.js';
import { startPowerDns, type PowerDnsServer } from '../../../benchmarks/third-party/powerdns.js';

function providerOf(powerdns: PowerDnsServer) {
  return createDnsProvider({ provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: powerdns.zone });
}

test('waits until the value is answered, and no longer', withPowerDns, async (t, powerdns) => {
  const name = `_acme-challenge.app.${powerdns.zone}`;
  // Asked through a gate that keeps each answer with its instants: when the value was first answered,
  // and how long each poll took on this machine.
  const gate = await startDnsGate(powerdns.dnsPort);
  t.teardown(() => gate.close());
  gate.open();
  const intervalMs = 50;
  const dns = new AuthoritativeDns({ nameservers: [gate.nameserver] });
  let addStarted = false;
  const waited = dns.waitForTxt(name, 'token-value', { timeoutMs: 30_000, intervalMs }).then(() => ({ afterAdd: addStarted, endedAt: performance.now() }));
  // Polls answered without the value first: they measure the poll period.
  while (gate.answers().length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
  addStarted = true;
  await providerOf(powerdns).addTxt(name, 'token-value');
  const { afterAdd, endedAt } = await waited;
  t.true(afterAdd, 'it resolved only after the record was added');
  const answers = gate.answers();
  const first = answers.findIndex((answer) => decode(answer.reply).answers?.map(txtValue).includes('token-value'));
  t.is(first, answers.length - 1, 'no question after the first answer with the value');
  const longestPollMs = Math.max(...answers.slice(1).map((answer, index) => answer.askedAt - answers[index]!.askedAt));
  const endedAfterMs = endedAt - answers[first]!.answeredAt;
  t.true(
    endedAfterMs <= longestPollMs + intervalMs,
    `the wait ended ${endedAfterMs.toFixed(0)} ms after the value was answered: past the longest poll measured (${longestPollMs.toFixed(0)} ms) and one interval (${intervalMs} ms)`,
  );
});

test('every nameserver must answer: one that lacks the value is named when time runs out', async (t) => {
  const [first, second] = await Promise.all([startPowerDns(), startPowerDns()]);
  try {
    const name = `_acme-challenge.app.${first.zone}`;
    const dns = new AuthoritativeDns({ nameservers: [first.nameserver, second.nameserver] });
    await providerOf(first).addTxt(name, 'token-value');
    await providerOf(second).addTxt(name, 'older-value');
    await t.throwsAsync(dns.waitForTxt(name, 'token-value', { timeoutMs: 500, intervalMs: 100 }), {
      code: 'ERR_DNS_PROPAGATION',
      message: `TXT ${name} = "token-value" was not answered within 500 ms by ${second.nameserver} (other values only: "older-value")`,
    });
    await providerOf(second).addTxt(name, 'token-value');
    await t.notThrowsAsync(
      dns.waitForTxt(name, 'token-value', { timeoutMs: 30_000, intervalMs: 50 }),
      'once every nameserver answers the value, the wait ends',
    );
  } finally {
    await Promise.all([first.stop(), second.stop()]);
  }
});

test('a name that does not exist times out as NXDOMAIN; a server that does not answer is named', withPowerDns, async (t, powerdns) => {
  const name = `_acme-challenge.nothing.${powerdns.zone}`;
  await t.throwsAsync(new AuthoritativeDns({ nameservers: [powerdns.nameserver] }).waitForTxt(name, 'v', { timeoutMs: 200, intervalMs: 50 }), {
    code: 'ERR_DNS_PROPAGATION',
    message: new RegExp(`by ${powerdns.nameserver} \\(NXDOMAIN\\)$`),
  });
  const silent = await startPowerDns();
  await silent.stop();
  await t.throwsAsync(
    new AuthoritativeDns({ nameservers: [silent.nameserver], queryTimeoutMs: 200 }).waitForTxt(name, 'v', { timeoutMs: 100, intervalMs: 50 }),
    {
      code: 'ERR_DNS_PROPAGATION',
      message: new RegExp(`by ${silent.nameserver} \\(no answer: `),
    },
  );
});

test('a CNAME on _acme-challenge is followed to where the TXT goes', withPowerDns, async (t, powerdns) => {
  await powerdns.createZone('validation.test');
  const dns = new AuthoritativeDns({ nameservers: [powerdns.nameserver] });
  t.is(await dns.challengeName(`plain.${powerdns.zone}`), `_acme-challenge.plain.${powerdns.zone}`);
  await providerOf(powerdns).setAddress(`_acme-challenge.app.${powerdns.zone}`, 'app.validation.test');
  t.is(await dns.challengeName(`app.${powerdns.zone}`), 'app.validation.test');
  t.is(await dns.challengeName(`App.${powerdns.zone}.`), 'app.validation.test');
  const delegated = createDnsProvider({ provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: 'validation.test' });
  await delegated.addTxt('app.validation.test', 'token-value');
  await dns.waitForTxt('app.validation.test', 'token-value', { timeoutMs: 30_000, intervalMs: 50 });
});

test('a REFUSED answer to the CNAME question is a failure to retry, not "no CNAME"', withPowerDns, async (t, powerdns) => {
  // PowerDNS refuses questions about names outside its zones, as a lame or misconfigured server does.
  await t.throwsAsync(new AuthoritativeDns({ nameservers: [powerdns.nameserver] }).challengeName('app.not-served.test'), {
    code: 'ERR_DNS_PROPAGATION',
    message: `no nameserver answered with authority whether _acme-challenge.app.not-served.test has a CNAME: ${powerdns.nameserver}: not authoritative, REFUSED`,
  });
});

test('a CNAME question whose first UDP answer is lost is asked again, not failed', withPowerDns, async (t, powerdns) => {
  const gate = await startDnsGate(powerdns.dnsPort);
  t.teardown(() => gate.close());
  gate.open();
  gate.dropNext(1);
  const dns = new AuthoritativeDns({ nameservers: [gate.nameserver], queryTimeoutMs: 500 });
  t.is(await dns.challengeName(`lossy.${powerdns.zone}`), `_acme-challenge.lossy.${powerdns.zone}`);
  // The lost question and at least one asked again: on a loaded machine an answer can also take longer
  // than the 500 ms a question waits, and then it is asked a third time, as it should be.
  t.true(gate.questions() >= 2, `asked ${gate.questions()} time(s)`);
  t.true(gate.answers().length >= 1, 'a question asked again was answered');
});

test('a CNAME loop is reported', withPowerDns, async (t, powerdns) => {
  const provider = providerOf(powerdns);
  await provider.setAddress(`_acme-challenge.loop.${powerdns.zone}`, `b.${powerdns.zone}`);
  await provider.setAddress(`b.${powerdns.zone}`, `_acme-challenge.loop.${powerdns.zone}`);
  await t.throwsAsync(new AuthoritativeDns({ nameservers: [powerdns.nameserver] }).challengeName(`loop.${powerdns.zone}`), {
    code: 'ERR_DNS_PROPAGATION',
    message: /loops at/,
  });
});

test('an answer too large for UDP is read over TCP', withPowerDns, async (t, powerdns) => {
  const name = `_acme-challenge.big.${powerdns.zone}`;
  const values = Array.from({ length: 40 }, (_, index) => `value-${String(index).padStart(2, '0')}-${'x'.repeat(40)}`);
  const provider = providerOf(powerdns);
  for (const value of values) await provider.addTxt(name, value);
  const [host, port] = powerdns.nameserver.split(':') as [string, string];
  // Over UDP with the payload size the query offers, the answer comes back truncated.
  const { stdout } = await promisify(execFile)('dig', [`@${host}`, '-p', port, '+ignore', '+norecurse', '+bufsize=1232', name, 'TXT']);
  t.regex(stdout, /;; flags: qr aa tc;/);
  const reply = await queryNameserver({ host, port: Number(port) }, name, 'TXT', 2000);
  t.true(reply.authoritative);
  t.deepEqual(reply.answers.map(txtValue).sort(), values);
  await new AuthoritativeDns({ nameservers: [powerdns.nameserver] }).waitForTxt(name, values[39]!, { timeoutMs: 30_000, intervalMs: 50 });
});

test("the zone of a challenge name whose CNAME points at another zone's apex is the zone the name is in", withPowerDns, async (t, powerdns) => {
  // A recursive resolver asked for the NS of `_acme-challenge.app.<zone>` follows its CNAME and answers
  // the NS of the zone it points into: that name is not an apex, and `validation.test` is not its zone.
  await powerdns.createZone('validation.test');
  await providerOf(powerdns).setAddress(`_acme-challenge.app.${powerdns.zone}`, 'validation.test');
  const dns = new AuthoritativeDns({ resolvers: [powerdns.nameserver] });
  t.is((await dns.zoneOf(`_acme-challenge.app.${powerdns.zone}`)).apex, powerdns.zone);
  t.is((await dns.zoneOf(`app.${powerdns.zone}`)).apex, powerdns.zone);
  t.is((await dns.zoneOf('validation.test')).apex, 'validation.test');
  t.true((await dns.zoneOf(`app.${powerdns.zone}`)).nameservers.length > 0);
});
