// Topics between roles of one process: certhub's replica (every token and private key) is read by the
// cert role's own fronts and by no other role, and published by the cert role alone. The greeter
// fixture role stands for any other role: its front tries to read and to forge the replica through
// the supervisor, beside a real `certhub` cert role in demo mode.
import { join } from 'node:path';
import test from 'ava';
import type { TopicReading } from '../fixtures/roles/greeter/site/site.js';
import { certhubDataDir, testAdminKey } from '../helpers/certhub.js';
import { outpostDir, startOutpost } from '../helpers/outpost.js';
import { projectPath } from '../helpers/process.js';

const greeterBin = projectPath('dist/test/fixtures/roles/outpost-with-greeter.js');

interface Domain {
  name: string;
  token: string;
}

test("another role's actor is refused certhub's replica topic, reading or publishing, and the refusal is logged; certhub's own front still reads it", async (t) => {
  const dir = await outpostDir(t);
  const config = {
    roles: { cert: { demo: true, data_dir: await certhubDataDir(t), bind: '127.0.0.1', port: 0 }, greeter: { host: '127.0.0.1', port: 0 } },
    supervisor: { control_socket: join(dir, 'control.sock') },
  };
  const outpost = await startOutpost(t, dir, config, 2, {}, greeterBin);
  const urlOf = (role: string) => new RegExp(`^${role} +(http://127\\.0\\.0\\.1:\\d+/)$`, 'm').exec(outpost.process.stdout())?.[1];
  const certUrl = urlOf('cert');
  const greeterUrl = urlOf('greeter');
  if (certUrl === undefined || greeterUrl === undefined) return t.fail(`no cert or greeter URL in:\n${outpost.process.stdout()}`);
  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${certUrl}${path}`, { ...init, headers: { authorization: `Bearer ${testAdminKey}`, 'content-type': 'application/json' } });

  const added = await admin('api/admin/domains', { method: 'POST', body: JSON.stringify({ name: 'app', target: '203.0.113.5' }) });
  t.is(added.status, 201);
  const domain = (await added.json()) as Domain;
  // The admin API answers reads from the front's replica: the cert role's front reads the topic.
  const read = await admin('api/admin/domains/app');
  t.is(read.status, 200);
  t.is(((await read.json()) as Domain).token, domain.token);

  const reading = await fetch(`${greeterUrl}api/read-topic?name=cert/domains`, { method: 'POST' });
  t.is(reading.status, 200);
  const answer = (await reading.json()) as TopicReading;
  t.false('received' in answer, `the greeter's front received the replica: ${JSON.stringify(answer).slice(0, 300)}`);
  t.deepEqual(answer, { refused: 'topic cert/domains is readable by role cert only' });
  t.truthy(
    await outpost.process.waitFor(/refused a subscription of actor greeter\/http-front \(role greeter\) to topic cert\/domains/, 10_000),
    'the refusal is logged',
  );

  const forged = { type: 'domain', domain: { ...domain, token: 'chd_forged-by-another-role' }, material: null };
  const publishing = await fetch(`${greeterUrl}api/publish-topic?name=cert/domains&key=${domain.name}`, { method: 'POST', body: JSON.stringify(forged) });
  t.is(publishing.status, 202);
  t.truthy(
    await outpost.process.waitFor(/refused a publish of actor greeter\/http-front \(role greeter\) on topic cert\/domains/, 10_000),
    'the forged publish is logged',
  );
  const after = await admin('api/admin/domains/app');
  t.is(((await after.json()) as Domain).token, domain.token, "the cert role's front kept the real domain");
});
