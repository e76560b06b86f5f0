// Temperatures from the kernel's hwmon class (Documentation/hwmon/sysfs-interface.rst): each
// /sys/class/hwmon/hwmonN is a chip with a `name` and `tempN_input` files in millidegrees Celsius,
// with an optional `tempN_label` and `tempN_crit`. Names, labels and thresholds do not change while
// the chip is there, so they are read once; a scan reads each sensor's input once. A machine without
// hwmon (most VMs and containers) has no sensors and costs one failed directory read.
import { readdirSync, readFileSync } from 'node:fs';
import type { TemperatureSensor } from '../protocol.js';

interface Sensor {
  chip: string;
  label: string;
  input: string;
  criticalCelsius: number | null;
}

export class HwmonReader {
  private sensors: Sensor[] | undefined;

  /** `sysRoot` is `/sys` on a live machine, a fixture tree in tests. */
  constructor(private readonly sysRoot = '/sys') {}

  read(): TemperatureSensor[] {
    this.sensors ??= this.discover();
    const readings: TemperatureSensor[] = [];
    let vanished = false;
    for (const sensor of this.sensors) {
      const millidegrees = readNumber(sensor.input);
      if (millidegrees === null) {
        vanished = true;
        continue;
      }
      readings.push({ chip: sensor.chip, label: sensor.label, celsius: millidegrees / 1000, criticalCelsius: sensor.criticalCelsius });
    }
    // A chip unplugged or a driver reloaded: look again next scan.
    if (vanished) this.sensors = undefined;
    return readings;
  }

  private discover(): Sensor[] {
    const classDir = `${this.sysRoot}/class/hwmon`;
    const sensors: Sensor[] = [];
    for (const chipDir of listOrEmpty(classDir).sort(byNumberIn)) {
      const dir = `${classDir}/${chipDir}`;
      const chip = readText(`${dir}/name`) ?? chipDir;
      const inputs = listOrEmpty(dir)
        .filter((file) => /^temp\d+_input$/.test(file))
        .sort(byNumberIn);
      for (const input of inputs) {
        const prefix = input.slice(0, -'_input'.length);
        const critical = readNumber(`${dir}/${prefix}_crit`);
        sensors.push({
          chip,
          label: readText(`${dir}/${prefix}_label`) ?? prefix,
          input: `${dir}/${input}`,
          criticalCelsius: critical === null ? null : critical / 1000,
        });
      }
    }
    return sensors;
  }
}

function listOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function readText(path: string): string | null {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return text === '' ? null : text;
  } catch {
    return null;
  }
}

function readNumber(path: string): number | null {
  const text = readText(path);
  if (text === null) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/** `hwmon10` after `hwmon9`, `temp10_input` after `temp9_input`. */
function byNumberIn(a: string, b: string): number {
  return Number(/\d+/.exec(a)?.[0] ?? 0) - Number(/\d+/.exec(b)?.[0] ?? 0) || a.localeCompare(b);
}
