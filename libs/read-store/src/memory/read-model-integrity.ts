import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { checkLmdbEnvironment } from '../../../platform/src/lmdb-file-check';
import { fsyncPathSync } from '../../../platform/src/fsync';

/**
 * The read-model file's integrity, checked before the file is mapped (`ReadModelFile.open`). Read
 * models are derived data: a file that fails is moved aside and the projections rebuild it from the
 * log, where mapping it would be a SIGBUS (a file cut short) or, worse, wrong answers (bytes
 * overwritten inside a page LMDB trusts).
 *
 * Two checks, both with plain reads: the LMDB meta pages against the file's size
 * (`checkLmdbEnvironment`), and a seal, `integrity.json` beside the file: its size and CRC-32,
 * written at each clean close and removed at open, before the first write. A file with a seal that
 * does not match was changed while no process had it open. Without a seal (a start after a crash or
 * kill, or the first start) only the meta check applies: the file may hold the last commits of a
 * process that died, which a start resumes from.
 */

const SEAL = 'integrity.json';
const CHUNK = 8 * 1024 * 1024;

interface Seal {
  size: number;
  crc32: number;
}

/** What is wrong with the read-model file in `directory`, or undefined when it passes. */
export function readModelFileProblem(directory: string): string | undefined {
  const report = checkLmdbEnvironment(directory);
  if (report.problem) return `${report.file}: ${report.problem}`;
  const sealPath = join(directory, SEAL);
  if (!existsSync(sealPath)) return undefined;
  let seal: Seal;
  try {
    seal = JSON.parse(readFileSync(sealPath, 'utf8')) as Seal;
  } catch {
    return `${sealPath} does not parse`;
  }
  if (seal.size !== report.size) return `${report.file} is ${report.size} bytes, ${seal.size} at its last clean close`;
  const sum = fileCrc32(report.file);
  if (sum !== seal.crc32) return `${report.file} does not match the checksum of its last clean close (CRC-32 ${sum}, recorded ${seal.crc32})`;
  return undefined;
}

/** Records the file's size and checksum, once it is closed and will not change until the next open. */
export function sealReadModelFile(directory: string): void {
  const file = join(directory, 'data.mdb');
  if (!existsSync(file)) return;
  const seal: Seal = { size: fstatSizeOf(file), crc32: fileCrc32(file) };
  writeFileSync(join(directory, SEAL), `${JSON.stringify(seal)}\n`);
}

/** Removes the seal: the file is about to change. */
export function unsealReadModelFile(directory: string): void {
  const sealPath = join(directory, SEAL);
  if (!existsSync(sealPath)) return;
  rmSync(sealPath, { force: true });
  fsyncPathSync(directory);
}

/** Moves a damaged read-model directory to `<name>.damaged-<timestamp>` beside it; answers the new path. */
export function setAsideReadModels(directory: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let target = join(dirname(directory), `${basename(directory)}.damaged-${stamp}`);
  for (let n = 2; existsSync(target); n += 1) target = join(dirname(directory), `${basename(directory)}.damaged-${stamp}-${n}`);
  renameSync(directory, target);
  fsyncPathSync(dirname(directory));
  return target;
}

function fstatSizeOf(file: string): number {
  const fd = openSync(file, 'r');
  try {
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

function fileCrc32(file: string): number {
  const fd = openSync(file, 'r');
  const buffer = Buffer.allocUnsafe(CHUNK);
  let sum = 0;
  try {
    for (let position = 0; ; ) {
      const read = readSync(fd, buffer, 0, CHUNK, position);
      if (read === 0) return sum;
      sum = crc32(buffer.subarray(0, read), sum);
      position += read;
    }
  } finally {
    closeSync(fd);
  }
}
