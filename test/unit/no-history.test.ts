// No tracked file tells the project's development history: files say what is true of the code as it is,
// and git log keeps the history. Every text file `git ls-files` lists is read, except LICENSE (its
// text is fixed) and CHANGELOG.md (a list of releases, dated as Keep a Changelog asks), and in docs/benchmarks.md the generated
// table between its bench-table markers (a measurement names its date and commit); a hit is
// reported as file:line with the rule it breaks. References to other projects stay allowed, as they
// say why code is as it is: `owner/repo#123` and https:// URLs are taken out of a line before the rules
// read it. The rules are proven on samples below; a sample spells ¦ where the test removes it, so that
// this file passes its own scan.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import test from 'ava';
import { projectPath } from '../helpers/process.js';

interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
  /** Read the line without its code samples: inline code with a blank in it shows what a program prints. */
  readonly besideCodeSamples?: boolean;
}

// What follows a number that names an entry of a tracker (punctuation, an item or part of it, "landed"),
// as opposed to the verb ("certhub can issue 50 certificates") or a count ("stop 3 fronts").
const trackerEnd = String.raw`(?=\s*(?:[,.:;)'’]|$)|\s+(?:items?|parts?|landed)\b)`;
// A git commit named in prose: 7 to 40 hex digits with both a digit and a letter, after a word that
// places it in history or inside parentheses or backquotes. Hex in code (0x…, keys, ids in fixtures,
// 64-digit sha256 sums) has no such word before it and does not match.
const hash = String.raw`(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}`;
const date = String.raw`20\d\d-\d\d-\d\d(?![T\d:])`;

const rules: readonly Rule[] = [
  { name: 'a session number', pattern: /\bsessions? \d+(?:\s*[-–]\s*\d+)?\b(?!\s*(?:s|ms|h|min|minutes?|hours?|days?|seconds?)\b)/i },
  { name: 'a stop number', pattern: new RegExp(String.raw`\bstops? #?\d+${trackerEnd}|\(stops? #?\d+`, 'i') },
  { name: 'a tracker issue', pattern: new RegExp(String.raw`\bissues? #\d+|\bissues? \d+${trackerEnd}|\(issues? \d+`, 'i') },
  { name: 'a tracker item', pattern: /\bitems? \d+\b/i },
  { name: 'a pull request number', pattern: /\b(?:PR|pull request) #?\d+/i },
  {
    name: 'a commit hash',
    pattern: new RegExp(
      String.raw`(?:\b(?:in|at|since|commit|commits|from|before|after|until|reverts?|reverted|see)\s+` + '`?' + String.raw`|\(\`?|\`)${hash}(?![\w/+-])`,
      'i',
    ),
    besideCodeSamples: true,
  },
  {
    name: 'a dated run',
    pattern: new RegExp(String.raw`\(${date}|\b(?:measured|run|ran|recorded|benchmarked|timed)\s+(?:on\s+)?${date}|^\s*#{1,6}\s.*\b${date}`, 'i'),
  },
  { name: 'a run count', pattern: /\b[1-9][\d,]*\s+passed\b/i },
  { name: 'a change told as history', pattern: /\btaken\s+back\b|\bfound\s+and\s+fixed\b/i },
  { name: 'the people who wrote it', pattern: /\b(?:other|another|founding|fellow)\s+engineer/i },
];

/** A line with what the rules allow taken out: URLs and upstream references of the form owner/repo#N. */
function allowedOut(line: string): string {
  return line.replace(/\bhttps?:\/\/\S+/g, ' ').replace(/[\w.-]+\/[\w.-]+#\d+/g, ' ');
}

/** The names of the rules `text` breaks. */
function broken(text: string): string[] {
  const line = allowedOut(text);
  const prose = line.replace(/`([^`]*)`/g, (span, inner: string) => (/\s/.test(inner) ? ' ' : span));
  return rules.filter((rule) => rule.pattern.test(rule.besideCodeSamples === true ? prose : line)).map((rule) => rule.name);
}

const commentStart = /^\s*(?:\/\/+|\/?\*+|#+|<!--)\s*/;

/** A line's text without its comment marker, to join it to the line before. */
function continuation(line: string): string {
  return line.replace(commentStart, '').trimStart();
}

/**
 * Every hit in `text` as `line: rule: text`, also those a line break splits ("session" at a line's
 * end, its number on the next). Lines are joined only where the next one is prose: in a document
 * (`prose`), or a comment line; two lines of code joined could read as a sentence they are not.
 */
function hits(text: string, prose: boolean): string[] {
  const lines = text.split('\n');
  const found: string[] = [];
  lines.forEach((line, index) => {
    const own = broken(line);
    const next = lines[index + 1];
    const joinable = next !== undefined && (prose || commentStart.test(next));
    const joined = !joinable ? [] : broken(`${line} ${continuation(next)}`).filter((name) => !own.includes(name) && !broken(continuation(next)).includes(name));
    for (const name of [...own, ...joined]) found.push(`${index + 1}: ${name}: ${line.trim().slice(0, 160)}`);
  });
  return found;
}

const sample = (text: string): string => text.replaceAll('¦', '');

const positives: readonly (readonly [string, string])[] = [
  ['Session ¦8, the same machine', 'a session number'],
  ['the latest figures (sessions ¦16-19, below)', 'a session number'],
  ['limit bug" (CI of stop ¦44), and beside', 'a stop number'],
  ["// user): stop ¦36's run of the suite lost", 'a stop number'],
  ['// (boulder alreadyReplaced, issue ¦22 item ¦1): the next attempt', 'a tracker issue'],
  ['// README.md commands (issue ¦25: "README cannot drift")', 'a tracker issue'],
  ['see issue ¦#12 for why', 'a tracker issue'],
  ['// Issue ¦22 item ¦6: certhub replaces only', 'a tracker issue'],
  ['removed only once final (item ¦3)', 'a tracker item'],
  ['is checked like every option (items ¦1, 2 and 9)', 'a tracker item'],
  ['merged in PR ¦#31', 'a pull request number'],
  ['the hole, closed in ¦c4443eb, came back', 'a commit hash'],
  ['a faster start (¦1208e87)', 'a commit hash'],
  ['- Start (`¦b83ba10`, the last code): 818 s', 'a commit hash'],
  ['### Cold start (¦2026-11-26)', 'a dated run'],
  ['measured on ¦2026-11-28 on the 2-core machine', 'a dated run'],
  ['835 s, 863 ¦passed, 0 failed', 'a run count'],
  ['a second lane was tried and taken ¦back', 'a change told as history'],
  ['a 404 after a restart (found and ¦fixed)', 'a change told as history'],
  ["a burst of another ¦engineer's tests", 'the people who wrote it'],
  ['written by the founding ¦engineer', 'the people who wrote it'],
];

const negatives: readonly string[] = [
  'uNetworking/uWebSockets#1928: a closed socket is still reported',
  'see https://github.com/nodejs/node/issues/12345 for the hang',
  "thread-stream cites pino#1113 for the worker's exit",
  'certhub can issue 50 certificates a week for one domain',
  'the supervisor waits, then stops 3 fronts one by one',
  'a session ¦12 hours long ends at the next request',
  "Date.parse('2026-11-25T12:00:00Z')",
  'renewalInfo answer ends (2025-03-01T00:00:00Z) before it starts',
  'this token was replaced (rotated) on 2026-12-01; give certhub-agent the new token',
  "{ id: '4f1c2e3b9a7d', name: 'web' }",
  "zone_id: '023e105f4ecef8ad9ca31a8372d0c353'",
  'sha256 of the key: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  'Buffer.alloc(128, 0xa5deadbeef1)',
  '"Docker version 28.2.2, build e6534b4"',
  '`--version` prints `certhub 0.1.0-beta.1 (commit 1b650736bd6c0331d5be951fd479a8262e547138)`',
  '    echo "0 passed, 1 failed"',
  'the items of a batch are answered in order',
];

test('each rule catches its samples', (t) => {
  for (const [text, rule] of positives) t.true(broken(sample(text)).includes(rule), `${sample(text)}: ${broken(sample(text)).join(', ') || 'no rule'}`);
});

test('references to other projects, code, fixtures and words that only look alike pass', (t) => {
  for (const text of negatives) t.deepEqual(broken(sample(text)), [], text);
});

test('a reference a line break splits is caught on the first line', (t) => {
  t.deepEqual(hits(sample('// a restarted certhub answered 404, found and\n// ¦fixed by the replica'), false), [
    '1: a change told as history: // a restarted certhub answered 404, found and',
  ]);
  t.deepEqual(hits(sample('the latest figures, of session\n¦19, below'), true), ['1: a session number: the latest figures, of session']);
  t.deepEqual(hits('// the first line\n// the second line', false), []);
  t.deepEqual(hits('case "$2" in\n  4f1c2e3b9a7d) recording=web ;;', false), [], 'two lines of code');
});

/** Tracked files the scan reads: text only, and not those whose text is fixed or dated by their form. */
function scannedFiles(root: string): string[] {
  const listed = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  return listed.filter((file) => !['LICENSE', 'CHANGELOG.md', 'package-lock.json'].includes(file) && existsSync(projectPath(file)));
}

/**
 * The table `npm run bench -- all --markdown --write` puts between its markers states the date, machine
 * and commit it was measured on, as a measurement must: it is the program's output, not a narrative.
 * Its lines are blanked (kept as lines, so that line numbers stay right).
 */
function withoutBenchmarkTable(text: string): string {
  return text.replace(/<!-- bench-table:start -->[\s\S]*?<!-- bench-table:end -->/g, (region) => region.replace(/[^\n]/g, ''));
}

test('no tracked file tells development history', (t) => {
  const root = projectPath('');
  const found: string[] = [];
  for (const file of scannedFiles(root)) {
    const bytes = readFileSync(projectPath(file));
    if (bytes.subarray(0, 8000).includes(0)) continue;
    for (const hit of hits(withoutBenchmarkTable(bytes.toString('utf8')), /\.(?:md|txt)$/.test(file))) found.push(`${file}:${hit}`);
  }
  t.deepEqual(found, [], `say what is true of the code now, without sessions, tracker numbers, commits, run dates or counts:\n${found.join('\n')}`);
});
