// `node dist/benchmarks/measure/cpu-profile.js FILE.cpuprofile [N]`: the self time of a V8 CPU profile
// (node --cpu-prof; each worker thread writes its own) summed by file and by function, the N largest of
// each. V8 samples wall time: a thread waiting for a core is counted where it waits, so under a loaded
// machine read it beside `perf` (on-CPU samples).
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function selfTime(profile: CpuProfile): { totalMicros: number; byFile: Map<string, number>; byFunction: Map<string, number> } {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFile = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let totalMicros = 0;
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0;
    const frame = nodes.get(id)?.callFrame;
    if (frame === undefined) return;
    totalMicros += micros;
    const file = frame.url === '' ? '(native or V8)' : frame.url.replace(/^file:\/\/.*?\/dist\//, 'dist/');
    const name = `${frame.functionName === '' ? '(anonymous)' : frame.functionName} ${file}:${frame.lineNumber + 1}`;
    byFile.set(file, (byFile.get(file) ?? 0) + micros);
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  });
  return { totalMicros, byFile, byFunction };
}

function printLargest(title: string, sums: Map<string, number>, totalMicros: number, count: number): void {
  console.log(`\n${title}`);
  for (const [name, micros] of [...sums].sort((a, b) => b[1] - a[1]).slice(0, count)) {
    console.log(`${((100 * micros) / totalMicros).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, count = '25'] = process.argv.slice(2);
  if (file === undefined) {
    console.error('usage: cpu-profile.js FILE.cpuprofile [N]');
    process.exit(2);
  }
  const { totalMicros, byFile, byFunction } = selfTime(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  console.log(`${(totalMicros / 1000).toFixed(0)} ms sampled`);
  printLargest('self time by file', byFile, totalMicros, Number(count));
  printLargest('self time by function', byFunction, totalMicros, Number(count));
}
