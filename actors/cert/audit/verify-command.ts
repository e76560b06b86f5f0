// `certhub audit verify [-d DIR]`: reads audit.jsonl as a stream (any size, constant memory) and checks
// its hash chain (chain.ts). Exit 0 when every whole line verifies, a torn last line included (it is
// reported as torn); exit 1 naming the first line that does not, or when there is no audit log.
import { createReadStream } from 'node:fs';
import { exitCodes } from '../../../src/errors.js';
import { ChainVerifier, type ChainVerdict } from './chain.js';
import { auditFileName, auditFilePath } from './audit-file.js';
import { exitAfterOutput } from '../../../src/cli/output.js';

export async function runAuditVerify(dataDir: string): Promise<void> {
  const path = auditFilePath(dataDir);
  let verdict: ChainVerdict;
  try {
    verdict = await verifyFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `no audit log at ${path} (certhub writes it from its first run)` : `cannot read ${path}: ${String(error)}`);
  }
  if (!verdict.ok) {
    process.stderr.write(`certhub: ${auditFileName} line ${verdict.line} ${verdict.problem}\n`);
    await exitAfterOutput(exitCodes.failure);
    return;
  }
  const torn =
    verdict.torn === null
      ? ''
      : `; after line ${verdict.torn.afterLine}, ${verdict.torn.bytes} bytes are a torn line (an append cut short by a crash, not tampering: certhub cuts it at its next start and records the cut)`;
  process.stdout.write(`${auditFileName}: ${verdict.entries} entries, chain intact${torn}\nlast line's SHA-256: ${verdict.lastHash}\n`);
}

async function verifyFile(path: string): Promise<ChainVerdict> {
  const verifier = new ChainVerifier();
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of createReadStream(path)) {
    let bytes = Buffer.concat([pending, chunk as Buffer]);
    let start = 0;
    for (let end = bytes.indexOf(10, start); end !== -1; end = bytes.indexOf(10, start)) {
      verifier.line(bytes.subarray(start, end));
      start = end + 1;
    }
    bytes = bytes.subarray(start);
    pending = Buffer.from(bytes);
  }
  return verifier.end(pending.length);
}
