// `outpost demo` as the cold-start benchmark sees it: the same host config, with the start-up time
// reported as the harness reads it.
import { demoHostConfig } from '../../src/cli/host-commands.js';
import { runHost } from '../../src/cli/run-host.js';
import { hostConfigSchema } from '../../src/config/host.js';
import { validateConfig } from '../../src/config/load.js';

const input = demoHostConfig();
if (input === undefined) throw new Error('no role is implemented: nothing to start');
await runHost(validateConfig(hostConfigSchema, input), {
  quiet: true,
  onStarted: ({ urls, startupMs }) => process.stdout.write(`${JSON.stringify({ urls, startupMs })}\n`),
});
