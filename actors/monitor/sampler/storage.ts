// Filesystems and block devices from the kernel's own tables: /proc/self/mountinfo for what is
// mounted, statfs(2) for how full it is, /proc/diskstats for the bytes read and written.

export interface Mount {
  /** `major:minor` of the device: two mounts with the same one are one filesystem. */
  deviceNumber: string;
  /** The directory of the filesystem that is mounted: `/` for a whole filesystem, deeper for a bind mount. */
  root: string;
  mountPoint: string;
  type: string;
  source: string;
}

/**
 * Filesystem types that hold no data of their own, as `df` leaves them out (gnulib's ME_DUMMY list)
 * together with `df -x tmpfs -x devtmpfs`; types with no blocks at all (cgroup, tracefs) are left
 * out by their size.
 */
const pseudoTypes: ReadonlySet<string> = new Set([
  'autofs',
  'binfmt_misc',
  'bpf',
  'cgroup',
  'cgroup2',
  'configfs',
  'debugfs',
  'devfs',
  'devpts',
  'devtmpfs',
  'efivarfs',
  'fuse.portal',
  'fusectl',
  'hugetlbfs',
  'ignore',
  'kernfs',
  'mqueue',
  'none',
  'nsfs',
  'proc',
  'pstore',
  'ramfs',
  'rpc_pipefs',
  'securityfs',
  'selinuxfs',
  'subfs',
  'sysfs',
  'tmpfs',
  'tracefs',
]);

/** /proc/self/mountinfo: `36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue`. */
export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    if (separator < 0 || fields.length < separator + 3) continue;
    mounts.push({
      deviceNumber: fields[2]!,
      root: unescapeMountField(fields[3]!),
      mountPoint: unescapeMountField(fields[4]!),
      type: fields[separator + 1]!,
      source: unescapeMountField(fields[separator + 2]!),
    });
  }
  return mounts;
}

/**
 * The mounts that hold data, one per filesystem: pseudo types left out, and of several mounts of one
 * device (bind mounts, a container's volumes) the one of its whole root nearest to `/`, as `df` keeps it.
 */
export function dataMounts(mounts: readonly Mount[]): Mount[] {
  const byDevice = new Map<string, Mount>();
  for (const mount of mounts) {
    if (pseudoTypes.has(mount.type) || mount.source === 'none') continue;
    const kept = byDevice.get(mount.deviceNumber);
    if (kept === undefined || preferred(mount, kept)) byDevice.set(mount.deviceNumber, mount);
  }
  return [...byDevice.values()].sort((a, b) => a.mountPoint.localeCompare(b.mountPoint));
}

function preferred(candidate: Mount, kept: Mount): boolean {
  const candidateWhole = candidate.root === '/';
  const keptWhole = kept.root === '/';
  if (candidateWhole !== keptWhole) return candidateWhole;
  return candidate.mountPoint.length < kept.mountPoint.length;
}

/** The kernel writes space, tab, newline and backslash in mount fields as octal escapes (`\040`). */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** statfs(2) figures in bytes, as `df` derives them. */
export interface FilesystemUsage {
  usedBytes: number;
  totalBytes: number;
  percent: number;
}

export function filesystemUsage(stats: { bsize: number; blocks: number; bfree: number; bavail: number }): FilesystemUsage {
  const usedBytes = (stats.blocks - stats.bfree) * stats.bsize;
  const availableBytes = stats.bavail * stats.bsize;
  const fillable = usedBytes + availableBytes;
  return { usedBytes, totalBytes: stats.blocks * stats.bsize, percent: fillable > 0 ? Math.round((usedBytes / fillable) * 1000) / 10 : 0 };
}

/** Cumulative bytes a device has read and written since boot. */
export interface DiskCounters {
  name: string;
  readBytes: number;
  writtenBytes: number;
}

// The kernel counts diskstats' sectors in 512-byte units whatever the device's own sector size
// (Documentation/admin-guide/iostats.rst).
const sectorBytes = 512;

/**
 * /proc/diskstats: `major minor name reads merged sectorsRead msRead writes merged sectorsWritten …`.
 * Devices that have never done any I/O (unused loop and ram devices) are left out.
 */
export function parseDiskstats(text: string): DiskCounters[] {
  const disks: DiskCounters[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 14) continue;
    const reads = Number(fields[3]);
    const writes = Number(fields[7]);
    if (reads === 0 && writes === 0) continue;
    disks.push({ name: fields[2]!, readBytes: Number(fields[5]) * sectorBytes, writtenBytes: Number(fields[9]) * sectorBytes });
  }
  return disks;
}
