// Filesystems, disks and network interfaces, read with the cheap counters every interval: each keeps
// its own two-minute history, and disk and interface rates are the change of the kernel's cumulative
// counters between two readings.
import { HistoryWindow } from './history.js';
import type { InterfaceCounters } from './interfaces.js';
import type { DiskCounters } from './storage.js';
import type { FilesystemReading } from './probes/probe.js';
import type { DiskHistoryPoint, DiskInfo, FilesystemInfo, HistoryPoint, InterfaceHistoryPoint, InterfaceInfo } from './protocol.js';

export interface DeviceReadings {
  filesystems: FilesystemReading[];
  disks: DiskCounters[];
  interfaces: InterfaceCounters[];
}

interface Tracked<Counters, Point, Shown> {
  counters: Counters;
  history: HistoryWindow<Point>;
  shown: Shown;
}

export class DeviceSampler {
  private readonly filesystemHistory = new Map<string, HistoryWindow>();
  private filesystemsShown: FilesystemInfo[] = [];
  private readonly disksTracked = new Map<string, Tracked<DiskCounters, DiskHistoryPoint, DiskInfo>>();
  private readonly interfacesTracked = new Map<string, Tracked<InterfaceCounters, InterfaceHistoryPoint, InterfaceInfo>>();
  private previousT: number | undefined;

  /** `points`: how many samples a history keeps. */
  constructor(private readonly points: number) {}

  /** One interval's readings, taken at `t` seconds since the epoch. */
  sample(t: number, readings: DeviceReadings): void {
    const seconds = this.previousT === undefined ? 0 : t - this.previousT;
    this.previousT = t;
    this.sampleFilesystems(t, readings.filesystems);
    sampleRates(this.disksTracked, readings.disks, this.points, (disk, before, history) => {
      const read = rate(disk.readBytes, before?.readBytes, seconds);
      const write = rate(disk.writtenBytes, before?.writtenBytes, seconds);
      if (before !== undefined) history.push({ t, read, write });
      return { name: disk.name, readBytesPerSecond: read, writeBytesPerSecond: write, history: [] };
    });
    sampleRates(this.interfacesTracked, readings.interfaces, this.points, (counters, before, history) => {
      const receive = rate(counters.receiveBytes, before?.receiveBytes, seconds);
      const transmit = rate(counters.transmitBytes, before?.transmitBytes, seconds);
      if (before !== undefined) history.push({ t, receive, transmit });
      return {
        name: counters.name,
        loopback: counters.name === 'lo',
        receiveBytesPerSecond: receive,
        transmitBytesPerSecond: transmit,
        receiveErrors: counters.receiveErrors,
        transmitErrors: counters.transmitErrors,
        receiveDrops: counters.receiveDrops,
        transmitDrops: counters.transmitDrops,
        history: [],
      };
    });
  }

  filesystems(): FilesystemInfo[] {
    return this.filesystemsShown.map((filesystem) => ({ ...filesystem, history: this.filesystemHistory.get(filesystem.mountPoint)?.values() ?? [] }));
  }

  disks(): DiskInfo[] {
    return [...this.disksTracked.values()].map(({ shown, history }) => ({ ...shown, history: history.values() }));
  }

  /**
   * By name in code-unit order (interface names are ASCII), loopback last: localeCompare, run every
   * scan in a thread whose caches have gone cold, took two thirds of listing the interfaces.
   */
  interfaces(): InterfaceInfo[] {
    return [...this.interfacesTracked.values()]
      .map(({ shown, history }) => ({ ...shown, history: history.values() }))
      .sort((a, b) => Number(a.loopback) - Number(b.loopback) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private sampleFilesystems(t: number, readings: readonly FilesystemReading[]): void {
    const seen = new Set<string>();
    for (const reading of readings) {
      seen.add(reading.mountPoint);
      let history = this.filesystemHistory.get(reading.mountPoint);
      if (history === undefined) {
        history = new HistoryWindow<HistoryPoint>(this.points);
        this.filesystemHistory.set(reading.mountPoint, history);
      }
      history.push({ t, v: reading.percent });
    }
    for (const mountPoint of this.filesystemHistory.keys()) if (!seen.has(mountPoint)) this.filesystemHistory.delete(mountPoint);
    this.filesystemsShown = readings.map((reading) => ({ ...reading, history: [] }));
  }
}

/** Updates `tracked` from this interval's counters: a device seen for the first time has no rate yet, a device gone is dropped. */
function sampleRates<Counters extends { name: string }, Point, Shown>(
  tracked: Map<string, Tracked<Counters, Point, Shown>>,
  readings: readonly Counters[],
  points: number,
  shown: (counters: Counters, before: Counters | undefined, history: HistoryWindow<Point>) => Shown,
): void {
  const seen = new Set<string>();
  for (const counters of readings) {
    seen.add(counters.name);
    const known = tracked.get(counters.name);
    const history = known?.history ?? new HistoryWindow<Point>(points);
    tracked.set(counters.name, { counters, history, shown: shown(counters, known?.counters, history) });
  }
  for (const name of tracked.keys()) if (!seen.has(name)) tracked.delete(name);
}

/** Bytes a second between two readings of a cumulative counter; 0 on the first reading or after a reset. */
function rate(now: number, before: number | undefined, seconds: number): number {
  if (before === undefined || seconds <= 0 || now < before) return 0;
  return Math.round((now - before) / seconds);
}
