import { readFile } from 'node:fs/promises';
import test from 'ava';
import { probePort, reservePort } from '../../src/http/port.js';

test('a reserved port lies below the kernel ephemeral range, where no outgoing connection is given one', async (t) => {
  const [low] = (await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')).trim().split(/\s+/).map(Number);
  const ports = await Promise.all(Array.from({ length: 20 }, () => reservePort('127.0.0.1')));
  for (const port of ports) {
    t.true(port >= 10_000 && port < (low as number), `port ${port} outside [10000, ${low})`);
    t.is(await probePort('127.0.0.1', port), undefined, `port ${port} can be listened on`);
  }
  t.true(new Set(ports).size > 1, 'ports are drawn, not fixed');
});
