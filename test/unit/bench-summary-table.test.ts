// `npm run bench -- NAME --markdown`: the rows the benchmarks hand over become one Markdown table after
// a header naming the machine and the commit, and `--write` replaces only its marked region.
import { cpus } from 'node:os';
import test from 'ava';
import { figure, ratio, replaceTable, summaryDocument, summaryRow, tableEnd, tableStart } from '../../benchmarks/summary-table.js';

test('the document: the command, the machine, one row a figure, cells with a pipe escaped, the benchmarks that did not finish', (t) => {
  summaryRow({
    benchmark: 'events: a | b',
    ours: `${figure(656_217)} events/s`,
    anchor: 'MessagePorts',
    anchorFigure: `${figure(829_235)} events/s`,
    ratio: ratio(656_217, 829_235),
  });
  const document = summaryDocument({
    command: 'all --markdown',
    startedAt: new Date('2026-01-02T03:04:05.678Z'),
    loadAtStart: 1.25,
    failed: [{ name: 'panel', reason: 'no Chromium' }],
    pending: ['qpool-collect', 'qpool-serve'],
  });
  const lines = document.split('\n');
  t.regex(lines[0]!, /^Made by `npm run bench -- all --markdown` from 2026-01-02T03:04:05Z to \S+Z, commit \S+:$/);
  t.true(
    lines[1]!.includes(`${cpus().length} cores`) && lines[1]!.includes(`Node ${process.versions.node}`) && lines[1]!.includes('load average 1.3 at the start'),
  );
  t.true(lines.includes('| events: a \\| b | 656,217 events/s | MessagePorts | 829,235 events/s | 0.79 |'));
  t.true(lines.includes('- panel: no Chromium'));
  t.true(lines.includes('Not measured in this run: qpool-collect, qpool-serve.'));
});

test('figures and ratios as the tables print them', (t) => {
  t.is(figure(56_640.4), '56,640');
  t.is(figure(3.456), '3.46');
  t.is(figure(Number.NaN), '-');
  t.is(ratio(1, 0), '-');
  t.is(ratio(1, 4), '0.25');
});

test('--write replaces the marked region and nothing else; a file without it is refused', (t) => {
  const text = `# Benchmarks\n\nhow to read them\n\n${tableStart}\nan older table\n${tableEnd}\n\nafter\n`;
  t.is(replaceTable(text, 'the table\n'), `# Benchmarks\n\nhow to read them\n\n${tableStart}\nthe table\n${tableEnd}\n\nafter\n`);
  const named = `the lines \`${tableStart}\` and \`${tableEnd}\` hold it\n\n${tableStart}\n${tableEnd}\n`;
  t.is(replaceTable(named, 'the table\n'), `the lines \`${tableStart}\` and \`${tableEnd}\` hold it\n\n${tableStart}\nthe table\n${tableEnd}\n`);
  t.throws(() => replaceTable('# no markers\n', ''), { message: /no <!-- bench-table:start -->/ });
  t.throws(() => replaceTable(`${tableEnd}\n${tableStart}\n`, ''), { message: /in that order/ });
});
