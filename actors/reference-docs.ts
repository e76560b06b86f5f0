// `npm run docs`: writes docs/reference/ from the code, so it cannot drift: every config file's
// options from its zod schema (and its JSON Schema), every executable's commands from its commander
// program, every HTTP API from its OpenAPI document, with the renderers of src/build/reference/. The
// one module that reads inside every role (eslint.layout.js): it runs at build time, and nothing
// imports it but the test that checks docs/reference/ is current. `node dist/actors/reference-docs.js
// [dir]` writes another folder.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { roles } from './registry.js';
import { certhubProgram } from './cert/cli/program.js';
import { certConfigSchema } from './cert/config.js';
import { certhubOpenApi } from './cert/site/openapi.js';
import { hostwatchProgram } from './monitor/cli/program.js';
import { monitorOpenApi } from './monitor/site/openapi.js';
import { fetchManySchema, fetchOneSchema } from './proxy/agent-exports.js';
import { certhubAgentProgram } from './proxy/cli/program.js';
import { proxyConfigSchema } from './proxy/config.js';
import { qpoolProgram } from './qpool/cli/program.js';
import { recvSchema, sendSchema } from './qpool/config.js';
import { qpoolOpenApi } from './qpool/site/openapi.js';
import { netspeedProgram } from './speedtest/cli/program.js';
import { outpostProgram } from '../src/cli/outpost-program.js';
import { hostConfigSchema } from '../src/config/host.js';
import { packageRoot, version } from '../src/version.js';
import { referenceFiles, staleReference, writeReference, type ReferencePages } from '../src/build/reference/write.js';

/** The qpool file as a whole: each command requires the sections it reads (collectFileSchema, serveFileSchema). */
const qpoolFileSchema = sendSchema.extend(recvSchema.shape).partial();

/** A Fetch JSON file: one domain, or a map of several. */
const fetchFileSchema = z.union([fetchOneSchema.meta({ title: 'One domain' }), fetchManySchema.meta({ title: 'Several domains' })]);

export const referencePages: ReferencePages = {
  listedIn: 'actors/reference-docs.ts',
  configs: [
    {
      file: 'config-host.md',
      title: 'host.json: outpost run',
      summary: 'the host config of `outpost run` and `outpost check`: the roles a machine plays, the supervisor, the log',
      sources: ['src/config/host.ts', 'actors/registry.ts', 'actors/*/role.ts', 'actors/qpool/send.ts', 'actors/qpool/recv.ts'],
      schema: hostConfigSchema(roles),
      intro:
        '`outpost run -c host.json` and `outpost check -c host.json` read it: the roles this machine plays under `roles` (a role left out is not run), how the supervisor starts and restarts their threads, and the log. The role executables (`certhub run`, `netspeed server`, ...) build one with their own role from their options.',
      elsewhere: {
        'roles.proxy': 'The same options as the file of `certhub-agent proxy -c`: [config-proxy.md](config-proxy.md).',
        'roles.send': 'The sections `anu`, `collect` and `diode` of a qpool file: [config-qpool.md](config-qpool.md).',
        'roles.recv': 'The section `server` of a qpool file: [config-qpool.md](config-qpool.md).',
      },
    },
    {
      file: 'config-certhub.md',
      title: 'config.json: certhub',
      summary: "certhub's `config.json` in its data directory (`certhub setup` writes it)",
      sources: ['actors/cert/config.ts'],
      schema: certConfigSchema({ demo: false }),
      intro:
        "certhub's settings, in `config.json` of its data directory: `certhub setup -d DIR` writes one, `certhub run -d DIR` reads it (and `roles.cert.data_dir` of a host config names the directory). It holds the admin key and the DNS provider's token: certhub refuses to start while group or others may read it (`chmod 600`). `certhub run --demo` needs no `dns` section.",
    },
    {
      file: 'config-proxy.md',
      title: 'Proxy JSON: certhub-agent proxy',
      summary: 'the file of `certhub-agent proxy -c` (the Proxy JSON the certhub panel exports), also `roles.proxy` of a host config',
      sources: ['actors/proxy/config.ts', 'actors/proxy/agent-exports.ts'],
      schema: proxyConfigSchema,
      intro:
        "`certhub-agent proxy -c proxy.json` reads it, as does `roles.proxy` of a host config. The certhub panel exports its first part (`server`, `pin`, `routes` with each route's `token`); the rest has defaults. It holds the routes' tokens: the proxy refuses it while group or others may read it. SIGHUP reads it again: `routes` change without a restart.",
    },
    {
      file: 'config-fetch.md',
      title: 'Fetch JSON: certhub-agent fetch',
      summary: 'the file of `certhub-agent fetch -c` (the Fetch JSON the certhub panel exports)',
      sources: ['actors/proxy/agent-exports.ts'],
      schema: fetchFileSchema,
      intro:
        '`certhub-agent fetch -c fetch.json` reads it instead of `-s`, `-t` and `-d`. The certhub panel exports it in one of two forms: one domain with its token, or a `domains` map from each full name to its token. With `--watch`, SIGHUP reads it again.',
    },
    {
      file: 'config-qpool.md',
      title: 'qpool.json: qpool collect and qpool serve',
      summary: 'the file of `qpool collect -c` (sections anu, collect, diode) and `qpool serve -c` (section server)',
      sources: ['actors/qpool/config.ts'],
      schema: qpoolFileSchema,
      intro:
        '`qpool collect -c qpool.json` (the sending machine) reads the sections `anu`, `collect` and `diode`, and needs `anu` and `diode`; `qpool serve -c qpool.json` and `qpool stats` (the receiving machine) read `server` and need it. One file may hold all four. `qpool setup send|recv` writes one, and `qpool sample-config` prints one with every option. The roles `send` and `recv` of a host config take the same sections.',
    },
  ],
  clis: [
    {
      file: 'cli-outpost.md',
      summary: 'outpost: run, demo, check, status, roles',
      sources: ['bin/outpost.ts', 'src/cli/outpost-program.ts', 'src/cli/program.ts'],
      program: outpostProgram(roles),
    },
    { file: 'cli-certhub.md', summary: 'certhub: setup, run', sources: ['bin/certhub.ts', 'actors/cert/cli/program.ts'], program: certhubProgram() },
    {
      file: 'cli-certhub-agent.md',
      summary: 'certhub-agent: fetch, proxy',
      sources: ['bin/certhub-agent.ts', 'actors/proxy/cli/program.ts', 'actors/proxy/cli/fetch.ts', 'actors/proxy/cli/proxy.ts'],
      program: certhubAgentProgram(),
    },
    {
      file: 'cli-netspeed.md',
      summary: 'netspeed: server, client',
      sources: ['bin/netspeed.ts', 'actors/speedtest/cli/program.ts'],
      program: netspeedProgram(),
    },
    { file: 'cli-hostwatch.md', summary: 'hostwatch', sources: ['bin/hostwatch.ts', 'actors/monitor/cli/program.ts'], program: hostwatchProgram() },
    {
      file: 'cli-qpool.md',
      summary: 'qpool: collect, serve, stats, setup, sample-config',
      sources: ['bin/qpool.ts', 'actors/qpool/cli/program.ts'],
      program: qpoolProgram(),
    },
  ],
  apis: [
    {
      file: 'api-certhub.md',
      title: 'certhub HTTP API',
      summary: "certhub's API: certificates by domain token, the admin API of the panel",
      sources: ['actors/cert/site/openapi.ts', 'src/http/operations-openapi.ts'],
      document: certhubOpenApi(version),
    },
    {
      file: 'api-hostwatch.md',
      title: 'hostwatch HTTP API',
      summary: "hostwatch's API: snapshots of the machine",
      sources: ['actors/monitor/site/openapi.ts', 'src/http/operations-openapi.ts'],
      document: monitorOpenApi(version),
    },
    {
      file: 'api-qpool.md',
      title: 'qpool HTTP API',
      summary: "qpool serve's API: each random value served once, pool figures",
      sources: ['actors/qpool/site/openapi.ts', 'src/http/operations-openapi.ts'],
      document: qpoolOpenApi(version),
    },
  ],
  apisNote:
    "netspeed's server (the speed test page's own API) and the proxy (which serves its routes' backends) have no OpenAPI document; their `/healthz`, `/readyz` and `/metrics` are those of every front, as in the pages above.",
};

/** docs/reference/ of the package this module was built in. */
export const referenceDir = join(fileURLToPath(packageRoot), 'docs', 'reference');

export { referenceFiles, staleReference };

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? referenceDir;
  const files = referenceFiles(referencePages);
  await writeReference(dir, files);
  process.stdout.write(`${dir}: ${files.size} files\n`);
}
