// `outpost demo` as the cold-start benchmark sees it: the same host config, with the start-up time
// reported as the harness reads it.
import { roles } from '../../actors/registry.js';
import { demoHostConfig } from '../../src/cli/host-commands.js';
import { runHost } from '../../src/cli/run-host.js';
import { hostConfigSchema } from '../../src/config/host.js';
import { validateConfig } from '../../src/config/load.js';

await runHost(validateConfig(hostConfigSchema(roles), await demoHostConfig(roles)), {
  known: roles,
  quiet: true,
  onStarted: ({ urls, startupMs }) => {
    process.stdout.write(`${JSON.stringify({ urls, startupMs })}\n`);
  },
});
