// A config file's reference page and JSON Schema, both from its zod schema: each option with its
// type, default, unit and meaning (the schema's `.describe()` text), a section per nested object, as
// PostgreSQL lists its settings. The page is rendered from the JSON Schema zod makes of the schema
// (as a file is written: `io: 'input'`), so the two cannot disagree.
import { z } from 'zod';
import { code, generatedNote, page, prose, slug, table } from './markdown.js';

export interface ConfigPage {
  /** The page's file name under docs/reference/ (`config-host.md`); the JSON Schema is schema/<same>.schema.json. */
  file: string;
  title: string;
  /** The source files the page is generated from, relative to the package root. */
  sources: readonly string[];
  schema: z.ZodType;
  /** What the file is, who reads it and where it lives (Markdown). */
  intro: string;
  /** Options documented on another page instead of here: the path, and the Markdown that points there. */
  elsewhere?: Readonly<Record<string, string>>;
}

/** A node of a JSON Schema, as z.toJSONSchema writes one. */
export interface SchemaNode {
  type?: string;
  description?: string;
  title?: string;
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: SchemaNode | boolean;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  /** A default that depends on the machine, said in words (`.meta({ 'x-default': ... })`); `default` is then left out. */
  'x-default'?: string;
  /** The option's unit when its name does not say it (`.meta({ 'x-unit': ... })`). */
  'x-unit'?: string;
  [keyword: string]: unknown;
}

/** The top-level key an editor reads the schema's location from; the loaders drop it (src/config/load.ts). */
const schemaKey: SchemaNode = { type: 'string', description: 'The JSON Schema of this file, for editors; outpost ignores it.' };

/** The JSON Schema of the page's config file (draft-07, which editors know best). */
export function configJsonSchema(config: ConfigPage): SchemaNode {
  const schema = z.toJSONSchema(config.schema, { io: 'input', unrepresentable: 'any', target: 'draft-07' }) as SchemaNode;
  withoutMachineDefaults(schema);
  const acceptSchemaKey = (node: SchemaNode) => {
    if (node.properties !== undefined) node.properties = { $schema: schemaKey, ...node.properties };
  };
  acceptSchemaKey(schema);
  for (const variant of schema.anyOf ?? schema.oneOf ?? []) acceptSchemaKey(variant);
  return { $schema: schema.$schema, title: config.title, ...schema };
}

/** A default the machine decides (`x-default`) is no default an editor should fill in. */
function withoutMachineDefaults(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const schema = node as SchemaNode;
  if (schema['x-default'] !== undefined) delete schema.default;
  for (const child of Object.values(schema)) withoutMachineDefaults(child);
}

interface Section {
  heading: string;
  description?: string | undefined;
  rows: string[][];
}

/** The reference page of a config file. */
export function configPage(config: ConfigPage): string {
  const schema = configJsonSchema(config);
  const sections: Section[] = [];
  const walker = new Walker(config.elsewhere ?? {}, sections);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants !== undefined) {
    for (const variant of variants) walker.object(variant, '', variant.title ?? variantLabel('', variant));
  } else {
    walker.object(schema, '', 'Top level');
  }
  const schemaFile = `schema/${schemaFileName(config.file)}`;
  const editor = [
    `**JSON Schema**: [${schemaFile}](${schemaFile}), also in the installed package (\`docs/reference/${schemaFile}\`).`,
    `An editor that reads JSON Schema (VS Code, JetBrains IDEs, Neovim with a JSON language server) checks and completes the file when it names the schema in a top-level \`"$schema"\` key, by path or URL:`,
    `\`"$schema": "/usr/lib/node_modules/outpost/docs/reference/${schemaFile}"\` (\`npm root -g\` prints where global packages are). outpost ignores that key.`,
  ].join(' ');
  const legend =
    'Each option: its type and allowed values, its default (*required*: it must be given; —: it may be left out, and has no default), its unit and what it does.';
  return page([
    `# ${config.title}`,
    generatedNote(config.sources),
    config.intro,
    editor,
    legend,
    ...sections
      .filter((section) => section.rows.length > 0)
      .map((section) =>
        page([
          `## ${section.heading}`,
          section.description === undefined ? undefined : prose(section.description),
          table(['Option', 'Type', 'Default', 'Unit', 'Meaning'], section.rows),
        ]).trimEnd(),
      ),
  ]);
}

/** `config-host.md` → `config-host.schema.json`. */
export function schemaFileName(pageFile: string): string {
  return pageFile.replace(/\.md$/, '.schema.json');
}

class Walker {
  constructor(
    private readonly elsewhere: Readonly<Record<string, string>>,
    private readonly sections: Section[],
  ) {}

  /** A section for the object at `path`, then one for each object inside it, in order. */
  object(node: SchemaNode, path: string, heading: string): void {
    const section: Section = { heading, description: path === '' && node.title === undefined ? undefined : node.description, rows: [] };
    this.sections.push(section);
    const nested: (() => void)[] = [];
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      if (key === '$schema') continue;
      const childPath = path === '' ? key : `${path}.${key}`;
      const required = node.required?.includes(key) === true;
      const pointer = this.elsewhere[childPath];
      if (pointer !== undefined) {
        section.rows.push([code(childPath), 'object', required ? '*required*' : '—', '', joinText(child.description, pointer)]);
        continue;
      }
      const variants = child.anyOf ?? child.oneOf;
      const objects = variants?.filter(isObject) ?? (isObject(child) ? [child] : []);
      const record = recordValue(child);
      const items = child.type === 'array' ? child.items : undefined;
      const itemVariants = items?.anyOf ?? items?.oneOf;
      const itemObjects = items === undefined ? [] : (itemVariants?.filter(isObject) ?? (isObject(items) ? [items] : []));
      if (itemObjects.length > 0) {
        const entry = `${childPath}[]`;
        const headings = itemObjects.map((variant) => (itemVariants === undefined ? code(entry) : `${code(entry)} ${variantLabel(entry, variant)}`));
        section.rows.push([
          code(childPath),
          `array of objects${count(child.minItems, child.maxItems)}`,
          defaultText(child, required),
          '',
          joinText(child.description, `Each item: ${headings.map(sectionLink).join(', ')}.`),
        ]);
        itemObjects.forEach((variant, index) => nested.push(() => this.object(variant, entry, headings[index] ?? entry)));
      } else if (record !== undefined) {
        const entry = `${childPath}.<name>`;
        section.rows.push([
          code(childPath),
          'map of name to object',
          required ? '*required*' : '—',
          '',
          joinText(child.description, `Each entry: ${sectionLink(code(entry))}.`),
        ]);
        nested.push(() => this.object(record, entry, code(entry)));
      } else if (objects.length > 0) {
        const headings = objects.map((variant) => (variants === undefined ? code(childPath) : `${code(childPath)} ${variantLabel(childPath, variant)}`));
        const type = variants === undefined ? 'object' : `one of ${objects.length} objects`;
        section.rows.push([
          code(childPath),
          type,
          required ? '*required*' : '—',
          '',
          joinText(child.description, `Options: ${headings.map(sectionLink).join(', ')}.`),
        ]);
        objects.forEach((variant, index) => nested.push(() => this.object(variant, childPath, headings[index] ?? childPath)));
      } else {
        section.rows.push([code(childPath), typeText(child), defaultText(child, required), unitOf(key, child), child.description ?? '']);
      }
    }
    for (const next of nested) next();
  }
}

function isObject(node: SchemaNode): boolean {
  return node.type === 'object' && node.properties !== undefined;
}

/** The schema of each entry of a map (`z.record`), when `node` is one. */
function recordValue(node: SchemaNode): SchemaNode | undefined {
  const value = node.additionalProperties;
  return node.properties === undefined && typeof value === 'object' && isObject(value) ? value : undefined;
}

/** What tells a variant of a union apart: its constant keys (`with provider "cloudflare"`). */
function variantLabel(path: string, node: SchemaNode): string {
  const constants = Object.entries(node.properties ?? {}).filter(([, child]) => child.const !== undefined);
  if (constants.length === 0) return path === '' ? 'Variant' : '';
  return `with ${constants.map(([key, child]) => `${key} ${code(JSON.stringify(child.const))}`).join(' and ')}`;
}

/** A link to the section headed `heading` on the same page (GitHub's anchors). */
function sectionLink(heading: string): string {
  return `[${heading}](#${slug(heading)})`;
}

function joinText(...parts: (string | undefined)[]): string {
  return parts.filter((part) => part !== undefined && part !== '').join(' ');
}

function typeText(node: SchemaNode): string {
  if (node.const !== undefined) return code(JSON.stringify(node.const));
  if (node.enum !== undefined) return node.enum.map((value) => code(JSON.stringify(value))).join(', ');
  const variants = node.anyOf ?? node.oneOf;
  if (variants !== undefined) return variants.map(typeText).join(' or ');
  switch (node.type) {
    case 'integer':
    case 'number':
      return `${node.type}${range(node.minimum, node.maximum)}`;
    case 'string':
      return node.format === 'uri' ? 'URL' : node.format === 'email' ? 'email address' : 'string';
    case 'array':
      return `array of ${node.items === undefined ? 'values' : typeText(node.items)}${count(node.minItems, node.maxItems)}`;
    default:
      return node.type ?? 'any';
  }
}

function range(minimum: number | undefined, maximum: number | undefined): string {
  const max = maximum === undefined || maximum >= Number.MAX_SAFE_INTEGER ? undefined : maximum;
  if (minimum !== undefined && max !== undefined) return `, ${minimum} to ${max}`;
  if (minimum !== undefined) return `, at least ${minimum}`;
  if (max !== undefined) return `, at most ${max}`;
  return '';
}

function count(minimum: number | undefined, maximum: number | undefined): string {
  if (minimum !== undefined && maximum !== undefined) return `, ${minimum} to ${maximum} items`;
  if (minimum !== undefined) return `, at least ${minimum}`;
  if (maximum !== undefined) return `, at most ${maximum} items`;
  return '';
}

function defaultText(node: SchemaNode, required: boolean): string {
  if (node['x-default'] !== undefined) return node['x-default'];
  if (node.default !== undefined) return code(JSON.stringify(node.default));
  return required ? '*required*' : '—';
}

/** Units said by the end of an option's name, longest first. */
const unitSuffixes: readonly [string, string][] = [
  ['_bytes_per_second', 'bytes per second'],
  ['_seconds', 'seconds'],
  ['_ms', 'milliseconds'],
  ['_hours', 'hours'],
  ['_kib', 'KiB (1024 bytes)'],
  ['_mb', 'MB (1,000,000 bytes)'],
  ['_bytes', 'bytes'],
];

function unitOf(key: string, node: SchemaNode): string {
  return node['x-unit'] ?? unitSuffixes.find(([suffix]) => key.endsWith(suffix))?.[1] ?? '';
}
