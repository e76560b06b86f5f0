// The project's documents as the documents tests read them: README.md, CONTRIBUTING.md and docs/,
// each split into its shell commands, its walkthroughs, its example files and outputs, and its links.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { projectPath } from './process.js';

export interface Walkthrough {
  name: string;
  /** The walkthrough's blocks, in document order, joined into one script. */
  script: string;
}

export interface Document {
  /** The path from the project root, e.g. `docs/certhub.md`. */
  path: string;
  /** The name of its table in test/doc-commands/: `readme`, `contributing`, `certhub`, `reference-api-qpool`. */
  table: string;
  text: string;
  /** Command lines of the ```sh blocks outside walkthroughs. */
  commands: string[];
  walkthroughs: Walkthrough[];
  /** In document order: files to write, and commands whose whole output the document shows. */
  examples: ({ file: string; text: string } | { command: string; output: string })[];
}

/** Every document the tests hold to their word, README first. */
export async function readDocuments(): Promise<Document[]> {
  const paths = ['README.md', 'CONTRIBUTING.md', ...(await markdownUnder('docs'))];
  const documents: Document[] = [];
  for (const path of paths) {
    const text = await readFile(projectPath(path), 'utf8').catch(() => undefined);
    if (text !== undefined) documents.push(parseDocument(path, text));
  }
  return documents;
}

async function markdownUnder(folder: string): Promise<string[]> {
  const entries = await readdir(projectPath(folder), { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => relative(projectPath(''), join(entry.parentPath, entry.name)))
    .sort();
}

export function tableName(path: string): string {
  return path
    .replace(/^docs\//, '')
    .replace(/\.md$/, '')
    .replace(/\//g, '-')
    .toLowerCase();
}

export function parseDocument(path: string, text: string): Document {
  const document: Document = { path, table: tableName(path), text, commands: [], walkthroughs: [], examples: [] };
  const blocks = /(?:<!-- (readme-test|doc-test): (.+?) -->\n)?```(\w*)\n(.*?)```/gs;
  for (const [, kind, marker, language, body] of text.matchAll(blocks)) {
    const walkthrough = kind === 'doc-test' ? /^walkthrough (\S+)$/.exec(marker ?? '')?.[1] : undefined;
    if (walkthrough !== undefined) {
      const known = document.walkthroughs.find((entry) => entry.name === walkthrough);
      if (known === undefined) document.walkthroughs.push({ name: walkthrough, script: body! });
      else known.script += body!;
      continue;
    }
    if (language === 'sh') document.commands.push(...commandsOf(body!));
    if (kind !== 'readme-test') continue;
    const file = /^file (\S+)$/.exec(marker ?? '');
    const output = /^output of (.+)$/.exec(marker ?? '');
    if (file !== null) document.examples.push({ file: file[1]!, text: body! });
    if (output !== null) document.examples.push({ command: output[1]!, output: body! });
  }
  return document;
}

/** The command lines of a shell block: continuations joined, comments and here-document bodies left out. */
export function commandsOf(body: string): string[] {
  const commands: string[] = [];
  let hereEnd: string | undefined;
  let pending = '';
  for (const line of body.split('\n')) {
    if (hereEnd !== undefined) {
      if (line === hereEnd) hereEnd = undefined;
      continue;
    }
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    const command = `${pending}${line}`
      .replace(/\s+#\s.*$/, '')
      .replace(/\s+/g, ' ')
      .trim();
    pending = '';
    hereEnd = /<<'?(\w+)'?$/.exec(command)?.[1];
    commands.push(command);
  }
  return commands;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a document's headings make, with GitHub's -1, -2 for repeated headings. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const withoutCode = text.replace(/```.*?```/gs, '');
  for (const [, heading] of withoutCode.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = headingSlug(heading!);
    let anchor = slug;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${slug}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** The relative links of a document (not URLs, not mail), outside code blocks and code spans. */
export function relativeLinksOf(text: string): string[] {
  const prose = text.replace(/```.*?```/gs, '').replace(/`[^`\n]*`/g, '');
  const links: string[] = [];
  for (const [, target] of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (!/^[a-z][a-z0-9+.-]*:/i.test(target!)) links.push(target!);
  }
  return links;
}
