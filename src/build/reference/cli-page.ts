// An executable's reference page from its commander program: each command with its usage, arguments,
// options (defaults included) and the text its --help adds after them, as commander itself knows them.
import type { EventEmitter } from 'node:events';
import type { Command, Option } from 'commander';
import { code, generatedNote, page, prose, slug, table } from './markdown.js';

export interface CliPage {
  file: string;
  sources: readonly string[];
  program: Command;
}

/** A command with the words that reach it after the program's name (`account rollover`). */
interface NamedCommand {
  path: string;
  command: Command;
}

/** Every command, a group's own commands after it (`certhub account`, then `certhub account rollover`). */
function commandsOf(parent: Command, prefix = ''): NamedCommand[] {
  return parent
    .createHelp()
    .visibleCommands(parent)
    .filter((command) => command.name() !== 'help')
    .flatMap((command) => {
      const path = `${prefix}${command.name()}`;
      return [{ path, command }, ...commandsOf(command, `${path} `)];
    });
}

export function cliPage(cli: CliPage): string {
  const { program } = cli;
  const name = program.name();
  const commands = commandsOf(program);
  const blocks = [
    `# ${name}: commands and options`,
    generatedNote(cli.sources),
    prose(program.description()),
    commands.length === 0
      ? undefined
      : table(
          ['Command', 'What it does'],
          commands.map(({ path, command }) => [commandLink(program, path), command.description()]),
        ),
    commandSection(program, program, commands.length === 0 ? 'Options' : 'Options of every command'),
    ...commands.map(({ path, command }) => commandSection(program, command, `${name} ${path}`, path)),
  ];
  return page(blocks);
}

function commandLink(program: Command, path: string): string {
  const heading = `${program.name()} ${path}`;
  return `[${heading}](#${slug(heading)})`;
}

function commandSection(program: Command, command: Command, heading: string, path = ''): string {
  const help = command.createHelp();
  const root = command === program;
  const usage = root ? `${program.name()} ${command.usage()}` : `${program.name()} ${path} ${command.usage()}`;
  const argumentsTable = help
    .visibleArguments(command)
    .map((argument) => [
      code(argument.name()),
      argument.required ? 'required' : 'optional',
      argument.variadic ? `${argument.description} (one or more)` : argument.description,
    ]);
  const options = help.visibleOptions(command).filter((option) => root || !isHelpOption(option));
  return page([
    `## ${heading}`,
    root ? undefined : prose(command.description()),
    `Usage: ${code(usage)}`,
    argumentsTable.length === 0 ? undefined : table(['Argument', '', 'Meaning'], argumentsTable),
    options.length === 0
      ? undefined
      : table(
          ['Option', 'Default', 'Meaning'],
          options.map((option) => [code(option.flags), defaultOf(option), option.description]),
        ),
    extraHelp(command),
  ]).trimEnd();
}

function isHelpOption(option: Option): boolean {
  return option.long === '--help';
}

function defaultOf(option: Option): string {
  if (option.mandatory) return '*required*';
  if (option.negate || option.defaultValue === undefined) return '';
  return code(option.defaultValueDescription ?? (typeof option.defaultValue === 'string' ? option.defaultValue : JSON.stringify(option.defaultValue)));
}

/** The text a command's help prints after its options (addHelpText('after', ...)), as a text block. */
function extraHelp(command: Command): string | undefined {
  let text = '';
  const context = { error: false, command, write: (chunk: string) => (text += chunk) };
  // A Command is an EventEmitter; commander's types leave that out.
  for (const listener of (command as unknown as EventEmitter).listeners('afterHelp')) (listener as (context: unknown) => void)(context);
  const trimmed = text.replace(/^\n+|\s+$/g, '');
  return trimmed === '' ? undefined : `\`\`\`text\n${trimmed}\n\`\`\``;
}
