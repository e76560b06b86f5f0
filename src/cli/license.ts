import { readFileSync } from 'node:fs';
import { packageRoot } from '../version.js';

/** The project licence followed by the third-party notices gathered at build time (see ../build/notices.ts). */
export function licenseText(): string {
  const license = readFileSync(new URL('LICENSE', packageRoot), 'utf8');
  const notices = readFileSync(new URL('dist/NOTICES.txt', packageRoot), 'utf8');
  return `${license}\n${'='.repeat(78)}\nThird-party software\n${'='.repeat(78)}\n\n${notices}`;
}
