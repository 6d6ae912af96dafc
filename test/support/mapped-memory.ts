import { readFileSync } from 'node:fs';

/**
 * Kilobytes of `file` resident in this process through its memory maps (the `Rss` of its mappings
 * in /proc/self/smaps), or null where the system has no such file (not Linux): specs that need it
 * say so and check nothing else.
 */
export function residentKbOfMappedFile(file: string): number | null {
  let smaps: string;
  try {
    smaps = readFileSync('/proc/self/smaps', 'latin1');
  } catch {
    return null;
  }
  let total = 0;
  let inFile = false;
  for (const line of smaps.split('\n')) {
    // A mapping's header: address range, permissions, offset, device, inode, then the path.
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inFile = line.endsWith(` ${file}`);
    else if (inFile && line.startsWith('Rss:')) total += Number(/(\d+) kB/.exec(line)![1]);
  }
  return total;
}
