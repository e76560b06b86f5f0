// `certhub-agent fetch`: its options and help. What it runs (fetch-run.ts) is loaded when it runs, so
// `certhub-agent proxy`, --help and --version do without the client's code.
import type { Command } from 'commander';
import { defaultFetchTimeoutMs, fetchExitCodes } from '../client/fetch-defaults.js';
import { defaultIntervalMs } from '../client/watch-schedule.js';
import { keyTypes } from '../../../src/crypto/key-types.js';

/** Where material goes without -o: `./certs/<domain>/…`, beside where the command runs. */
export const defaultOutDir = 'certs';

export interface FetchCliOptions {
  /** Every -s, each split at its commas, in the order given. */
  server?: string[];
  token?: string;
  domain?: string;
  config?: string;
  outDir: string;
  ca?: string;
  caBundle?: string;
  pin?: string;
  allowUntrusted?: boolean;
  insecureHttp?: boolean;
  reloadCmd?: string;
  watch?: boolean;
  combinedPem?: boolean;
  format?: string;
  p12PasswordFile?: string;
  p12Legacy?: boolean;
  interval?: string;
  timeout: string;
  hostName?: string;
  ownKey?: boolean;
  keyType: string;
  rekey?: boolean;
}

const exitCodesHelp = `
Exit codes:
  ${fetchExitCodes.ok}  every domain fetched (changed files written, the reload command succeeded)
  ${fetchExitCodes.fetchFailed}  a domain could not be fetched or written (its files are left as they were)
  ${fetchExitCodes.usage}  bad options or config file
  ${fetchExitCodes.reloadFailed}  material written, but the reload command failed
  With --watch: 0 after SIGTERM or SIGINT; failures are retried, not fatal. SIGHUP reads the config
  file (and --ca, --ca-bundle) again: a new token is used at once, without a restart.

Examples:
  certhub-agent fetch -s https://certhub.example.net -t chd_… -d app.example.net -o /etc/ssl/certhub
  certhub-agent fetch -s https://certhub-a.example.net,https://certhub-b.example.net -t chd_… -d app.example.net
  certhub-agent fetch -c fetch.json --watch --reload-cmd '["systemctl", "reload", "nginx"]'
  certhub-agent fetch -c fetch.json --format pem,p12 --p12-password-file p12.pass
  certhub-agent fetch -c fetch.json --own-key --key-type ecdsa-p384
`;

/** -s given again adds to the list; one -s may hold several URLs separated by commas. */
function collectServers(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(',').map((url) => url.trim())];
}

export function fetchCommand(program: Command): Command {
  return program
    .command('fetch')
    .description('fetch certificate material for domains into <dir>/<domain>/{cert,chain,fullchain,privkey}.pem')
    .option(
      '-s, --server <url>',
      'certhub server URL (https://…; http:// only on loopback, or with --insecure-http); several nodes of one certhub: repeat -s or separate the URLs with commas, tried in order, the next on a connection error, a timeout or a 5xx',
      collectServers,
    )
    .option('-t, --token <token>', "the domain's token (from the certhub panel)")
    .option('-d, --domain <domain>', "the domain's full name (app.example.net)")
    .option('-c, --config <file>', 'a Fetch JSON file exported by the certhub panel (instead of -s, -t, -d)')
    .option('-o, --out-dir <dir>', 'where the material goes', defaultOutDir)
    .option('--ca <file>', 'PEM of a private CA to trust for the server, besides the system roots')
    .option(
      '--pin <sha256:hex>',
      "trust exactly the server certificate with this SHA-256 (certhub's self-signed one, as its start line and panel show it), and no CA",
    )
    .option('--ca-bundle <file>', 'PEM of the CAs the fetched certificates may chain to, besides the system roots (a private CA)')
    .option('--allow-untrusted', 'write material whose chain leads to no trusted root (certhub --demo certificates)')
    .option('--insecure-http', 'allow a plain http:// server on another machine (the token and the key cross the network in clear)')
    .option(
      '--combined-pem',
      'also write <dir>/<domain>/combined.pem: full chain and key in one file (0600), as HAProxy takes them (combined_pem in a Fetch JSON file)',
    )
    .option(
      '--format <formats>',
      'what to write: pem (cert, chain, fullchain, privkey), p12 (bundle.p12: key, leaf and chain in one PKCS#12 file, 0600) or pem,p12',
      'pem',
    )
    .option('--p12-password-file <file>', 'with --format p12: the file whose first line is the PKCS#12 password (readable by its owner alone)')
    .option('--p12-legacy', "with --format p12: PKCS#12's own 3DES and a SHA-1 MAC, for old Java and Windows, instead of AES-256-CBC, PBKDF2 and a SHA-256 MAC")
    .option(
      '--own-key',
      'keep the private key on this host: make it here (privkey.pem, 0600), send certhub a CSR, and take the certificate without a key (the domain is own_key in certhub)',
    )
    .option('--key-type <type>', `with --own-key: the type of a key made here: ${keyTypes.join(', ')}`, 'ecdsa-p256')
    .option('--rekey', 'with --own-key: make a new key and send its CSR, even though certhub serves a certificate for the key kept')
    .option('--reload-cmd <json>', 'run after material changed: a JSON array, run without a shell, e.g. \'["systemctl", "reload", "nginx"]\'')
    .option('--watch', 'keep running: refetch on the interval and ahead of expiry, retry failures with backoff')
    .option('--interval <seconds>', `with --watch: seconds between fetches (default ${defaultIntervalMs / 1000}), never later than halfway to expiry`)
    .option('--host-name <name>', "the name this host reports to certhub with, after each check (default: the system's host name)")
    .option('--timeout <seconds>', 'deadline of one fetch, connecting included', String(defaultFetchTimeoutMs / 1000))
    .addHelpText('after', exitCodesHelp)
    .action(async (options: FetchCliOptions) => {
      const { runFetch } = await import('./fetch-run.js');
      await runFetch(options);
    });
}
