import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { checkLmdbEnvironment } from '#platform/lmdb-file-check';
import { fsyncPathSync } from '#platform/fsync';

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
 *
 * The checksum reads the whole file (1.5 GB for a million events: about a second): above a size
 * (`checkReadModelFile`'s `syncChecksumLimit`) it is left to the caller to run in the background
 * (`read-model-background-check.ts`). A file found damaged there is marked (`DAMAGED`, beside it)
 * until the next open, which sets it aside as it does a file that fails here.
 */

const SEAL = 'integrity.json';
const MARKER = 'DAMAGED';
const CHUNK = 8 * 1024 * 1024;

interface Seal {
  size: number;
  crc32: number;
}

/** A checksum left to compute: `file` must have the CRC-32 `crc32`. */
export interface DeferredChecksum {
  file: string;
  size: number;
  crc32: number;
  /** The seal as written, to write back when the file has not changed by the next close. */
  sealText: string;
}

export interface ReadModelFileCheck {
  /** What is wrong, or undefined when it passes (so far: see `deferred`). */
  problem?: string;
  /** The checksum still to compare, for a file over the limit. */
  deferred?: DeferredChecksum;
}

/** What is wrong with the read-model file in `directory`, or undefined when it passes: every check, the checksum included. */
export function readModelFileProblem(directory: string): string | undefined {
  return checkReadModelFile(directory).problem;
}

/**
 * Checks the read-model file in `directory`: its damage marker, its meta pages and its seal. The
 * checksum is compared here for a file of at most `syncChecksumLimit` bytes, else handed back as
 * `deferred`.
 */
export function checkReadModelFile(directory: string, syncChecksumLimit = Number.POSITIVE_INFINITY): ReadModelFileCheck {
  const markerPath = join(directory, MARKER);
  if (existsSync(markerPath))
    return { problem: `marked damaged by a check while it was open (${markerPath}): ${readFileSync(markerPath, 'utf8').trim()}` };
  const report = checkLmdbEnvironment(directory);
  if (report.problem) return { problem: `${report.file}: ${report.problem}` };
  const sealPath = join(directory, SEAL);
  if (!existsSync(sealPath)) return {};
  let seal: Seal;
  const sealText = readFileSync(sealPath, 'utf8');
  try {
    seal = JSON.parse(sealText) as Seal;
  } catch {
    return { problem: `${sealPath} does not parse` };
  }
  if (seal.size !== report.size) return { problem: `${report.file} is ${report.size} bytes, ${seal.size} at its last clean close` };
  if (report.size > syncChecksumLimit) return { deferred: { file: report.file, size: report.size, crc32: seal.crc32, sealText } };
  return { problem: checksumProblem(report.file, fileCrc32(report.file), seal.crc32) };
}

/** The problem of a file whose checksum is `sum` where its seal says `recorded`, or undefined when they match. */
export function checksumProblem(file: string, sum: number, recorded: number): string | undefined {
  return sum === recorded ? undefined : `${file} does not match the checksum of its last clean close (CRC-32 ${sum}, recorded ${recorded})`;
}

/** Marks the file damaged until it is set aside (the next `checkReadModelFile` fails on it). */
export function markReadModelFileDamaged(directory: string, problem: string): void {
  writeFileSync(join(directory, MARKER), `${new Date().toISOString()} ${problem}\n`);
  fsyncPathSync(join(directory, MARKER));
  fsyncPathSync(directory);
}

/** Writes back a seal read at open (`DeferredChecksum.sealText`): for a file no commit changed since. */
export function restoreSeal(directory: string, sealText: string): void {
  writeFileSync(join(directory, SEAL), sealText);
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
    for (let position = 0; ;) {
      const read = readSync(fd, buffer, 0, CHUNK, position);
      if (read === 0) return sum;
      sum = crc32(buffer.subarray(0, read), sum);
      position += read;
    }
  } finally {
    closeSync(fd);
  }
}
