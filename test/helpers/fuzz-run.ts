// Runs the OpenAPI fuzz against one real server: fetch its /api/spec, send fast-check's requests,
// check every answer against the document, then that the server still answers /healthz and that its
// resident memory stayed within a bound of what it used after a warm-up.
import { readFile } from 'node:fs/promises';
import type { ExecutionContext } from 'ava';
import fc from 'fast-check';
import { getGlobalDispatcher } from 'undici';
import { AnswerCheck, operationsOf, type Answer, type OpenApiDocument } from './fuzz-openapi.js';
import { requestArbitrary, type FuzzOptions, type FuzzRequest } from '../cert/helpers/fuzz-requests.js';

export interface FuzzTarget {
  /** Base URL ending in a slash. */
  url: string;
  pid: number;
  /** Whether the site answers CORS preflight on its open paths. */
  cors: boolean;
}

/** How much of a body is read: the largest documented answer (a snapshot, /metrics) is far below. */
const bodyReadLimit = 4 * 1024 * 1024;
const answerTimeoutMs = 20_000;

export async function fetchDocument(url: string): Promise<OpenApiDocument> {
  const response = await fetch(`${url}api/spec`);
  if (response.status !== 200) throw new Error(`/api/spec answered ${response.status}`);
  return (await response.json()) as OpenApiDocument;
}

/** Sends one fuzzed request and reads its answer; an event stream's body is left unread and closed. */
export async function send(url: string, fuzz: FuzzRequest): Promise<Answer> {
  // The dispatcher's own request sends the path as given; the URL form would normalise it first.
  const response = await getGlobalDispatcher().request({
    origin: new URL(url).origin,
    method: fuzz.method,
    path: fuzz.target,
    headers: fuzz.headers,
    body: fuzz.body,
    headersTimeout: answerTimeoutMs,
    bodyTimeout: answerTimeoutMs,
  });
  const contentType = headerText(response.headers['content-type']);
  // Closing a body early makes it emit an abort error, which is expected here.
  response.body.on('error', () => undefined);
  if (fuzz.method === 'HEAD' || contentType?.startsWith('text/event-stream') === true) {
    response.body.destroy();
    return { method: fuzz.method, target: fuzz.target, status: response.statusCode, contentType, body: undefined };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > bodyReadLimit) {
      response.body.destroy();
      break;
    }
    chunks.push(chunk);
  }
  return { method: fuzz.method, target: fuzz.target, status: response.statusCode, contentType, body: Buffer.concat(chunks) };
}

/** The server's resident set in bytes (VmRSS), from /proc. */
export async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(kib) * 1024;
}

/** Sends `fuzz` and fails the test, with the request and the answer, unless the document allows the answer; returns its status. */
export async function expectDocumented(t: ExecutionContext, target: FuzzTarget, fuzz: FuzzRequest): Promise<number> {
  const check = new AnswerCheck(await fetchDocument(target.url), target.cors);
  const answer = await send(target.url, fuzz);
  const problem = check.problem(answer);
  t.is(problem, undefined, describe(fuzz, answer));
  return answer.status;
}

export interface FuzzRun {
  seed: number;
  numRuns: number;
  options: FuzzOptions;
}

/**
 * The property run: every answer documented, then the server alive and its RSS bounded. The RSS
 * bound is measured, not guessed: the RSS after a warm-up of the same requests (every route and
 * buffer pool touched once) plus as much again, at least 64 MiB. The runs here grew 6-14 MiB
 * (certhub, qpool, hostwatch; 600 to 3000 requests): the bound catches a front that keeps the large
 * bodies it is sent (tens of KiB a request, hundreds of requests), not a leak of a few bytes each.
 */
export async function fuzzOpenApi(t: ExecutionContext, target: FuzzTarget, fixed: FuzzRun): Promise<void> {
  // FUZZ_SEED and FUZZ_RUNS explore beyond the suite's fixed run (CONTRIBUTING.md).
  const run = { ...fixed, seed: Number(process.env.FUZZ_SEED ?? fixed.seed), numRuns: Number(process.env.FUZZ_RUNS ?? fixed.numRuns) };
  const document = await fetchDocument(target.url);
  const operations = operationsOf(document);
  t.true(operations.length > 0, 'the document lists operations');
  const check = new AnswerCheck(document, target.cors);
  const arbitrary = requestArbitrary(operations, run.options);
  const statuses = new Map<number, number>();
  const property = async (fuzz: FuzzRequest) => {
    const status = await answerDocumented(target, check, fuzz);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  };

  const runProperty = async (seed: number, numRuns: number) => {
    const details = await fc.check(fc.asyncProperty(arbitrary, property), { seed, numRuns, endOnFailure: true });
    if (!details.failed) return true;
    t.fail(
      `fuzz failed with seed ${seed} (path ${details.counterexamplePath ?? '?'}): keep it as a regression test\n${String(details.errorInstance)}\n${fc.defaultReportMessage(details) ?? ''}`,
    );
    return false;
  };

  if (!(await runProperty(run.seed + 1, Math.max(20, Math.floor(run.numRuns / 5))))) return;
  const before = await residentBytes(target.pid);
  const startedAt = performance.now();
  if (!(await runProperty(run.seed, run.numRuns))) return;
  const seconds = (performance.now() - startedAt) / 1000;
  const health = await fetch(`${target.url}healthz`);
  t.is(health.status, 200, 'the server still answers /healthz');
  const after = await residentBytes(target.pid);
  const bound = before + Math.max(before, 64 * 1024 * 1024);
  t.log(
    `${run.numRuns} requests in ${seconds.toFixed(1)} s (seed ${run.seed}); RSS ${mib(before)} MiB after warm-up, ${mib(after)} MiB after the run, bound ${mib(bound)} MiB`,
  );
  t.log(
    `statuses: ${[...statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status} x${count}`)
      .join(', ')}`,
  );
  t.true(after <= bound, `RSS grew from ${mib(before)} MiB to ${mib(after)} MiB`);
}

/** The answer's status, once it is known to be documented; throws with the request and answer otherwise. */
async function answerDocumented(target: FuzzTarget, check: AnswerCheck, fuzz: FuzzRequest): Promise<number> {
  const answer = await send(target.url, fuzz);
  const problem = check.problem(answer);
  if (problem !== undefined) throw new Error(`${problem}\n${describe(fuzz, answer)}`);
  return answer.status;
}

function describe(fuzz: FuzzRequest, answer: Answer): string {
  const body =
    fuzz.body === undefined ? '' : ` body ${JSON.stringify(fuzz.body.slice(0, 300))}${fuzz.body.length > 300 ? `... (${fuzz.body.length} chars)` : ''}`;
  const answered = answer.body === undefined ? '' : ` ${answer.body.toString('utf8').slice(0, 300)}`;
  return `${fuzz.method} ${fuzz.target.slice(0, 300)} headers ${JSON.stringify(fuzz.headers)}${body}\n-> ${answer.status} ${answer.contentType ?? ''}${answered}`;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
