// What `certhub-agent fetch` writes: the PEM files, a PKCS#12 file, or both (--format), and the
// PKCS#12 file's password (--p12-password-file, its first line) and form (--p12-legacy). The password
// file is refused when group or others may read it, as the Fetch JSON is.
import { readFile } from 'node:fs/promises';
import type { Pkcs12Settings } from '../../../src/crypto/pkcs12.js';
import { ConfigError } from '../../../src/errors.js';
import { assertPrivateFile } from '../../../src/config/private-file.js';

export interface FormatOptions {
  format?: string;
  p12PasswordFile?: string;
  p12Legacy?: boolean;
  combinedPem?: boolean;
}

export interface OutputFormats {
  /** Write cert.pem, chain.pem, fullchain.pem and privkey.pem. */
  pem: boolean;
  /** Write bundle.p12 with these settings. */
  p12?: Pkcs12Settings;
}

const formats = ['pem', 'p12'] as const;
type Format = (typeof formats)[number];

/** The problems of the format options alone, without reading a file; [] when they fit together. */
export function formatProblems(options: FormatOptions): string[] {
  const chosen = chosenFormats(options.format);
  if (chosen === undefined) return [`--format must be pem, p12 or pem,p12, not ${JSON.stringify(options.format)}`];
  const problems: string[] = [];
  const p12 = chosen.has('p12');
  if (p12 && options.p12PasswordFile === undefined) problems.push('--format p12 needs --p12-password-file FILE (the password on its first line)');
  if (!p12 && options.p12PasswordFile !== undefined) problems.push('--p12-password-file needs --format p12 (or pem,p12)');
  if (!p12 && options.p12Legacy === true) problems.push('--p12-legacy needs --format p12 (or pem,p12)');
  if (!chosen.has('pem') && options.combinedPem === true) problems.push('--combined-pem needs --format pem (or pem,p12)');
  return problems;
}

/** The formats the options ask for, the password file read; throws ConfigError naming each problem. */
export async function readOutputFormats(options: FormatOptions): Promise<OutputFormats> {
  const problems = formatProblems(options);
  if (problems.length > 0) throw new ConfigError(problems);
  const chosen = chosenFormats(options.format) ?? new Set<Format>(['pem']);
  const path = options.p12PasswordFile;
  if (!chosen.has('p12') || path === undefined) return { pem: true };
  await assertPrivateFile(path, 'the PKCS#12 password');
  return { pem: chosen.has('pem'), p12: { password: await readPassword(path), legacy: options.p12Legacy === true } };
}

/** `pem`, `p12`, `pem,p12` (either order) as a set; undefined for anything else. */
function chosenFormats(format: string | undefined): Set<Format> | undefined {
  if (format === undefined) return new Set(['pem']);
  const names = format.split(',').map((name) => name.trim());
  if (names.some((name) => !formats.includes(name as Format)) || new Set(names).size !== names.length) return undefined;
  return new Set(names as Format[]);
}

/** The first line of `path`, as `openssl -passin file:` reads it. */
async function readPassword(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`--p12-password-file cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`]);
  }
  const password = text.split(/\r?\n/, 1)[0] ?? '';
  if (password === '') throw new ConfigError([`--p12-password-file ${path} holds no password on its first line`]);
  return password;
}
