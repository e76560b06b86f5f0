// An IPv4-only host: the zone's nameserver name resolves to an IPv4 address that answers
// and an IPv6 address the host has no route to (Cloudflare's nameservers on Docker's default network).
// Issuance must succeed there: one answer per nameserver name, an unreachable family skipped.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test from 'ava';
import { makeIpv4OnlyHost } from '../../helpers/network-namespaces.js';
import { projectPath } from '../../helpers/process.js';

const run = promisify(execFile);

test('a certificate is issued on a host without IPv6 whose nameserver name also has an AAAA address', async (t) => {
  const nameserver = 'ns1.example.test';
  const host = await makeIpv4OnlyHost(t, { [nameserver]: ['127.0.0.1', '2001:db8::53'] });
  const [command, ...prefix] = host.command;
  await t.throwsAsync(run(command!, [...prefix, 'ip', '-6', 'route', 'get', '2001:db8::53']), undefined, 'the host has no IPv6 route');
  const { stdout } = await run(command!, [...prefix, process.execPath, projectPath('dist/test/cert/fixtures/ipv4-host/issue.js'), nameserver], {
    timeout: 120_000,
  });
  const outcome = JSON.parse(stdout.trim().split('\n').at(-1)!) as { issued?: string; error?: { code: string; message: string } };
  t.is(outcome.error, undefined, JSON.stringify(outcome.error));
  t.regex(outcome.issued ?? '', /: OK$/);
});
