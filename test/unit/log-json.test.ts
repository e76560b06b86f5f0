import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { SupervisorLog } from '../../src/log/supervisor-log.js';

async function jsonLinesOf(t: ExecutionContext, write: (log: SupervisorLog) => void): Promise<Record<string, unknown>[]> {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-log-json-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'outpost.jsonl');
  const log = new SupervisorLog({ json: true, quiet: true, file });
  write(log);
  await log.flush();
  return (await readFile(file, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

test('a JSON log line says which actor, role, host and process spoke', async (t) => {
  const [line] = await jsonLinesOf(t, (log) => log.logger('send/collector').warn('batch sent', { values: 3 }));
  t.deepEqual(Object.keys(line!), ['time', 'level', 'actor', 'role', 'msg', 'hostname', 'pid', 'values']);
  t.like(line, { level: 'warn', actor: 'send/collector', role: 'send', msg: 'batch sent', hostname: hostname(), pid: process.pid, values: 3 });
});

test('a call field cannot overwrite a reserved key of a JSON log line', async (t) => {
  const [line] = await jsonLinesOf(t, (log) =>
    log.logger('send/collector').error('fetched', { source: 'keyed', actor: 'x', role: 'y', level: 'info', time: 0, msg: 'z', hostname: 'h', pid: 1 }),
  );
  t.like(line, {
    actor: 'send/collector',
    role: 'send',
    level: 'error',
    msg: 'fetched',
    hostname: hostname(),
    pid: process.pid,
    source: 'keyed',
    field_actor: 'x',
    field_role: 'y',
    field_level: 'info',
    field_time: 0,
    field_msg: 'z',
    field_hostname: 'h',
    field_pid: 1,
  });
  t.regex(String(line!.time), /^\d{4}-\d\d-\d\dT/);
});

test('the supervisor has no role in a JSON log line', async (t) => {
  const [line] = await jsonLinesOf(t, (log) => log.logger('supervisor').error('stopping'));
  t.false('role' in line!);
  t.like(line, { actor: 'supervisor', msg: 'stopping' });
});
