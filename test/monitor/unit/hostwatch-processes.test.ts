import test from 'ava';
import { identify, versionFromOutput, versionFromPath, type ProcessFacts } from '../../../actors/monitor/sampler/process-names.js';
import { processTable, type ProcessSample } from '../../../actors/monitor/sampler/process-table.js';

const facts = (exe: string, argv: string[], comm = ''): ProcessFacts => ({ pid: 1, ppid: 0, comm, exe, argv });

test('interpreters are named by their script or module', (t) => {
  t.deepEqual(identify(facts('/usr/bin/python3.11', ['python3', '-u', 'worker.py', '--queue', 'a'])), { name: 'worker.py', runtime: 'python' });
  t.deepEqual(identify(facts('/usr/bin/python3.11', ['python3', '-m', 'http.server', '8000'])), { name: 'http.server', runtime: 'python' });
  t.deepEqual(identify(facts('/venv/bin/python', ['/venv/bin/python', '/venv/bin/gunicorn', 'app:app'])), { name: 'gunicorn', runtime: 'python' });
  t.deepEqual(identify(facts('/usr/bin/node', ['node', '--max-old-space-size=4096', '-r', 'dotenv/config', 'server.js'])), {
    name: 'server.js',
    runtime: 'node',
  });
  t.deepEqual(identify(facts('/usr/bin/node', ['node', '/srv/app/node_modules/vite/bin/vite.js', 'dev'])), { name: 'vite', runtime: 'node' });
  t.deepEqual(identify(facts('/usr/bin/node', ['node', '/srv/node_modules/@angular/cli/bin/ng.js'])), { name: '@angular/cli', runtime: 'node' });
  t.deepEqual(identify(facts('/usr/bin/ruby3.1', ['ruby', 'bin/rails', 'server'])), { name: 'rails', runtime: 'ruby' });
  t.deepEqual(identify(facts('/usr/bin/perl', ['perl', '-w', '/usr/sbin/munin-node'])), { name: 'munin-node', runtime: 'perl' });
  t.deepEqual(identify(facts('/usr/lib/jvm/java-17/bin/java', ['java', '-Xmx2g', '-cp', 'lib/*', 'org.example.Main'])), { name: 'Main', runtime: 'java' });
  t.deepEqual(identify(facts('/usr/lib/jvm/java-17/bin/java', ['java', '-jar', '/opt/kafka/kafka.jar'])), { name: 'kafka.jar', runtime: 'java' });
  t.deepEqual(identify(facts('/usr/bin/node', ['node'])), { name: 'node', runtime: 'node' });
  t.deepEqual(identify(facts('/usr/bin/node', ['node', '/srv/node_modules/.bin/ava'])), { name: 'ava', runtime: 'node' });
  t.deepEqual(identify(facts('/usr/bin/node', ['node', '/srv/app/'])), { name: 'app', runtime: 'node' });
});

test('multiprocessing workers take the name of the program that started them', (t) => {
  const parent = { name: 'train.py', runtime: 'python' };
  const spawned = facts('/usr/bin/python3.11', [
    'python3',
    '-c',
    'from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5, pipe_handle=7)',
    '--multiprocessing-fork',
  ]);
  t.deepEqual(identify(spawned, parent), { name: 'train.py', runtime: 'python' });
  const tracker = facts('/usr/bin/python3.11', ['python3', '-c', 'from multiprocessing.resource_tracker import main;main(4)']);
  t.deepEqual(identify(tracker, parent), { name: 'train.py', runtime: 'python' });
  // Without a python parent, the walk stops at the worker: its binary names it.
  t.deepEqual(identify(spawned), { name: 'python3.11', runtime: 'python' });
  t.deepEqual(identify(spawned, { name: 'bash', runtime: null }), { name: 'python3.11', runtime: 'python' });
});

test('a python -c program that uses multiprocessing is the program, not a worker of whatever started it', (t) => {
  const program = facts('/usr/bin/python3.11', ['python3', '-c', 'import multiprocessing; multiprocessing.Pool(4).map(abs, range(8))']);
  t.deepEqual(identify(program, { name: 'process_api', runtime: null }), { name: 'python -c', runtime: 'python' });
  const forkserver = facts('/usr/bin/python3.11', ['python3', '-c', 'from multiprocessing.forkserver import main; main(9, 10, ["__main__"])']);
  const server = identify(forkserver, identify(program));
  t.deepEqual(server, { name: 'python -c', runtime: 'python' });
  // A worker forked by the forkserver has its command line, and takes its name from it.
  t.deepEqual(identify(forkserver, server), { name: 'python -c', runtime: 'python' });
});

test('other programs are named by their executable, whatever title they set', (t) => {
  t.deepEqual(identify(facts('/usr/sbin/nginx', ['nginx: worker process'], 'nginx')), { name: 'nginx', runtime: null });
  t.deepEqual(identify(facts('', ['nginx: worker process'], 'nginx')), { name: 'nginx', runtime: null });
  t.deepEqual(identify(facts('/memfd:sealed-91173221a7ea (deleted)', ['/usr/lib/chromium/chromium', '--type=zygote'], 'chromium')), {
    name: 'chromium',
    runtime: null,
  });
  t.deepEqual(identify(facts('/usr/lib/chromium/chromium (deleted)', ['/usr/lib/chromium/chromium', '--type=renderer'])), { name: 'chromium', runtime: null });
});

test('interpreter versions from paths and from their own output', (t) => {
  t.is(versionFromPath('/root/.pyenv/versions/3.11.7/bin/python3.11'), '3.11.7');
  t.is(versionFromPath('/home/a/.nvm/versions/node/v22.1.0/bin/node'), '22.1.0');
  t.is(versionFromPath('/opt/node-v20.11.1-linux-x64/bin/node'), '20.11.1');
  t.is(versionFromPath('/usr/bin/python3.11'), '3.11');
  t.is(versionFromPath('/usr/bin/node'), '');
  t.is(versionFromOutput('Python 3.11.2'), '3.11.2');
  t.is(versionFromOutput('openjdk version "17.0.15" 2025-04-15'), '17.0.15');
  t.is(versionFromOutput('\nThis is perl 5, version 36, subversion 0 (v5.36.0) built for x86_64-linux'), '5.36.0');
});

test('processes with one parent and one name form a row; rows sort by CPU plus memory share', (t) => {
  const sample = (pid: number, ppid: number, name: string, cpuPercent: number, memoryBytes: number): ProcessSample => ({
    pid,
    ppid,
    identity: { name, runtime: name.endsWith('.py') ? 'python' : null },
    source: 'alice',
    container: false,
    cpuPercent,
    memoryBytes,
    exe: '/usr/bin/python3.11',
  });
  const rows = processTable(
    [
      sample(10, 1, 'worker.py', 20, 100),
      sample(11, 1, 'worker.py', 30, 100),
      sample(12, 1, 'worker.py', 10, 100),
      sample(20, 1, 'postgres', 5, 500),
      sample(30, 2, 'worker.py', 1, 100),
    ],
    1000,
    10,
    (runtime) => (runtime === 'python' ? '3.11' : ''),
  );
  t.deepEqual(
    rows.map((row) => [row.name, row.count, row.cpuPercent, row.memoryPercent]),
    [
      ['worker.py', 3, 60, 30],
      ['postgres', 1, 5, 50],
      ['worker.py', 1, 1, 10],
    ],
  );
  t.deepEqual(rows[0]?.runtime, { name: 'python', version: '3.11' });
  t.deepEqual(rows[0]?.pids, [10, 11, 12]);
  t.is(processTable([sample(1, 0, 'a', 1, 1), sample(2, 0, 'b', 2, 1)], 10, 1, () => '').length, 1);
});
