// Both DNS providers against a real PowerDNS (Cloudflare through its double, which writes into it):
// what they set is what PowerDNS answers (`dig`), switching target types works, removal leaves
// nothing of ours, challenge TXT values for one name coexist.
import test from 'ava';
import { providersUnderTest, withProvider } from '../helpers/dns-provider.js';

for (const kind of providersUnderTest) {
  test('an IPv4 target makes an A record that PowerDNS answers', withProvider, kind, async (t, { provider, powerdns }) => {
    const name = `app.${powerdns.zone}`;
    t.is(await provider.setAddress(name, '203.0.113.5'), 'A');
    t.deepEqual(await powerdns.dig(name, 'A'), ['203.0.113.5']);
    t.deepEqual(
      (await provider.list(name)).map(({ type, content }) => ({ type, content })),
      [{ type: 'A', content: '203.0.113.5' }],
    );
  });

  test('an IPv6 target makes an AAAA record', withProvider, kind, async (t, { provider, powerdns }) => {
    const name = `v6.${powerdns.zone}`;
    t.is(await provider.setAddress(name, '2001:db8::5'), 'AAAA');
    t.deepEqual(await powerdns.dig(name, 'AAAA'), ['2001:db8::5']);
    t.deepEqual(await powerdns.dig(name, 'A'), []);
  });

  test('a host name target makes a CNAME record', withProvider, kind, async (t, { provider, powerdns }) => {
    const name = `alias.${powerdns.zone}`;
    t.is(await provider.setAddress(name, 'Backend.Example.org.'), 'CNAME');
    t.deepEqual(await powerdns.dig(name, 'CNAME'), ['backend.example.org.']);
    t.deepEqual(
      (await provider.list(name)).map(({ type, content }) => ({ type, content })),
      [{ type: 'CNAME', content: 'backend.example.org' }],
    );
  });

  test('the target switches IP -> host name -> IPv6 -> IP, one record at a time', withProvider, kind, async (t, { provider, powerdns }) => {
    const name = `switch.${powerdns.zone}`;
    const answers = async () => ({ A: await powerdns.dig(name, 'A'), AAAA: await powerdns.dig(name, 'AAAA'), CNAME: await powerdns.dig(name, 'CNAME') });
    await provider.setAddress(name, '203.0.113.5');
    t.deepEqual(await answers(), { A: ['203.0.113.5'], AAAA: [], CNAME: [] });
    await provider.setAddress(name, 'target.example.org');
    // A query for A at a CNAME is answered with the CNAME: the A record itself is gone.
    t.deepEqual(await answers(), { A: ['target.example.org.'], AAAA: ['target.example.org.'], CNAME: ['target.example.org.'] });
    await provider.setAddress(name, '2001:db8::7');
    t.deepEqual(await answers(), { A: [], AAAA: ['2001:db8::7'], CNAME: [] });
    await provider.setAddress(name, '198.51.100.9');
    t.deepEqual(await answers(), { A: ['198.51.100.9'], AAAA: [], CNAME: [] });
    await provider.setAddress(name, '198.51.100.10');
    t.deepEqual(await answers(), { A: ['198.51.100.10'], AAAA: [], CNAME: [] });
    t.is((await provider.list(name)).length, 1);
  });

  test('removing a name leaves no record of ours, and other names untouched', withProvider, kind, async (t, { provider, powerdns, cloudflare }) => {
    const name = `gone.${powerdns.zone}`;
    const neighbour = `stays.${powerdns.zone}`;
    await provider.setAddress(neighbour, '192.0.2.1');
    await provider.setAddress(name, 'target.example.org');
    await provider.removeAddress(name);
    for (const type of ['A', 'AAAA', 'CNAME']) t.deepEqual(await powerdns.dig(name, type), [], type);
    t.deepEqual(await provider.list(name), []);
    t.deepEqual(await powerdns.dig(neighbour, 'A'), ['192.0.2.1']);
    if (cloudflare !== undefined)
      t.deepEqual(
        cloudflare.records().filter((record) => record.name === name),
        [],
      );
    // Removing again is not an error.
    await provider.removeAddress(name);
  });

  test('two challenge TXT values coexist; removing one keeps the other', withProvider, kind, async (t, { provider, powerdns }) => {
    const name = `_acme-challenge.app.${powerdns.zone}`;
    const [first, second] = ['first-value-AbC_-1', 'second-value-XyZ_-2'];
    // Added at the same time, as two overlapping orders would.
    await Promise.all([provider.addTxt(name, first), provider.addTxt(name, second)]);
    t.deepEqual((await powerdns.dig(name, 'TXT')).sort(), [`"${first}"`, `"${second}"`]);
    await provider.addTxt(name, first);
    t.is((await provider.list(name)).length, 2, 'adding a value already there adds nothing');
    await provider.removeTxt(name, first);
    t.deepEqual(await powerdns.dig(name, 'TXT'), [`"${second}"`]);
    await provider.removeTxt(name, first);
    await provider.removeTxt(name, second);
    t.deepEqual(await powerdns.dig(name, 'TXT'), []);
    t.deepEqual(await provider.list(name), []);
  });

  test('many changes at once to different names all land', withProvider, kind, async (t, { provider, powerdns }) => {
    const names = Array.from({ length: 30 }, (_, index) => `_acme-challenge.n${index}.${powerdns.zone}`);
    await Promise.all(names.map((name) => provider.addTxt(name, `value-of-${name}`)));
    for (const name of names) t.deepEqual(await powerdns.dig(name, 'TXT'), [`"value-of-${name}"`], name);
  });
}

test('changes made at once: one refused change fails alone, the others land', withProvider, 'powerdns', async (t, { provider, powerdns }) => {
  // The first change is being written while the others arrive: they are written together, and the
  // CNAME at the apex (beside its SOA and NS) makes PowerDNS refuse that batch, so each is retried alone.
  const results = await Promise.allSettled([
    provider.setAddress(`a.${powerdns.zone}`, '192.0.2.1'),
    provider.setAddress(powerdns.zone, 'elsewhere.example.org'),
    provider.setAddress(`b.${powerdns.zone}`, '192.0.2.2'),
    provider.setAddress(`c.${powerdns.zone}`, '192.0.2.3'),
  ]);
  t.deepEqual(
    results.map((result) => result.status),
    ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
  );
  const refused = results[1] as PromiseRejectedResult;
  t.like(refused.reason, {
    code: 'ERR_DNS_PROVIDER',
    message: 'powerdns: the change was refused (HTTP 422): RRset example.test. IN CNAME: Conflicts with pre-existing RRset',
  });
  t.deepEqual(
    [await powerdns.dig(`a.${powerdns.zone}`, 'A'), await powerdns.dig(`b.${powerdns.zone}`, 'A'), await powerdns.dig(`c.${powerdns.zone}`, 'A')],
    [['192.0.2.1'], ['192.0.2.2'], ['192.0.2.3']],
  );
});

test('a name outside the zone is refused before anything is asked', withProvider, 'powerdns', async (t, { provider }) => {
  await t.throwsAsync(provider.setAddress('app.elsewhere.test', '203.0.113.5'), { code: 'ERR_BAD_REQUEST', message: /outside the zone example\.test/ });
  await t.throwsAsync(provider.setAddress('app.example.test', 'not a target!'), {
    code: 'ERR_BAD_REQUEST',
    message: /neither an IP address nor a valid host name/,
  });
});
