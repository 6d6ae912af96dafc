import { TextDecoder } from 'node:util';
import { fflate } from '#document/packages';
import { ImportFailure } from './import-failure';

/**
 * A zip archive's directory, read without inflating anything, and entries inflated one at a time
 * under a size cap. fflate's one-shot unzip trusts the sizes an archive declares; here the declared
 * sizes are checked before any inflating and the real output is counted while inflating, so a zip
 * bomb is stopped after at most one small chunk past its declared size.
 */
export interface ZipEntry {
  /** The name as stored: not yet normalised, possibly unsafe. */
  name: string;
  isDirectory: boolean;
  /** 0 stored, 8 deflated; anything else cannot be read. */
  method: number;
  encrypted: boolean;
  compressedSize: number;
  /** As declared by the archive: the real size is only known by inflating. */
  uncompressedSize: number;
  localHeaderOffset: number;
}

const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_END_LOCATOR = 0x07064b50;
const ZIP64_END_OF_DIRECTORY = 0x06064b50;
const DIRECTORY_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const ZIP64_EXTRA_FIELD = 0x0001;
const U16_UNKNOWN = 0xffff;
const U32_UNKNOWN = 0xffffffff;
/** Compressed bytes inflated at a time: deflate expands at most about 1,032 times, so one step yields at most ~16 MB. */
const INFLATE_STEP = 16 * 1024;

/** The archive's entries from its central directory; refuses more than `maxEntries` before reading them. */
export function readZipDirectory(bytes: Uint8Array, maxEntries: number): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndOfDirectory(view);
  let entryCount = view.getUint16(end + 10, true);
  let directorySize = view.getUint32(end + 12, true);
  let directoryOffset = view.getUint32(end + 16, true);
  if (entryCount === U16_UNKNOWN || directorySize === U32_UNKNOWN || directoryOffset === U32_UNKNOWN) {
    ({ entryCount, directorySize, directoryOffset } = readZip64End(view, end));
  }
  if (entryCount > maxEntries) {
    throw new ImportFailure(413, `the archive has ${entryCount} entries; at most ${maxEntries} can be imported`);
  }
  if (directoryOffset + directorySize > bytes.length) throw corrupt('its directory lies outside the file');

  const entries: ZipEntry[] = [];
  let at = directoryOffset;
  for (let index = 0; index < entryCount; index++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== DIRECTORY_HEADER) throw corrupt('its directory is damaged');
    const flags = view.getUint16(at + 8, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const nameStart = at + 46;
    const extraStart = nameStart + nameLength;
    if (extraStart + extraLength + commentLength > bytes.length) throw corrupt('its directory is damaged');
    const name = decodeName(bytes.subarray(nameStart, extraStart), (flags & 0x0800) !== 0);
    const sizes = zip64Sizes(view, extraStart, extraLength, {
      uncompressedSize: view.getUint32(at + 24, true),
      compressedSize: view.getUint32(at + 20, true),
      localHeaderOffset: view.getUint32(at + 42, true),
    });
    entries.push({
      name,
      isDirectory: name.endsWith('/') || name.endsWith('\\'),
      method: view.getUint16(at + 10, true),
      encrypted: (flags & 0x0001) !== 0,
      ...sizes,
    });
    at = extraStart + extraLength + commentLength;
  }
  return entries;
}

/**
 * An entry's bytes, inflated in small steps and abandoned with 413 as soon as the output grows
 * past `maxBytes` (the entry's declared size, already checked against the limits).
 */
export function inflateEntry(bytes: Uint8Array, entry: ZipEntry, maxBytes: number): Uint8Array {
  const compressed = compressedData(bytes, entry);
  const tooLarge = (): ImportFailure =>
    new ImportFailure(413, `the archive entry ${entry.name} inflates to more than its declared ${maxBytes} bytes`);
  if (entry.method === 0) {
    if (compressed.length > maxBytes) throw tooLarge();
    return compressed.slice();
  }
  if (entry.method !== 8) throw corrupt(`${entry.name} uses compression method ${entry.method}, which is not supported`);

  const chunks: Uint8Array[] = [];
  let length = 0;
  const inflate = new (fflate().Inflate)((chunk) => {
    length += chunk.length;
    if (length > maxBytes) throw tooLarge(); // leaves push() at once: nothing more is inflated
    chunks.push(chunk);
  });
  try {
    if (compressed.length === 0) inflate.push(new Uint8Array(0), true);
    for (let offset = 0; offset < compressed.length; offset += INFLATE_STEP) {
      inflate.push(compressed.subarray(offset, offset + INFLATE_STEP), offset + INFLATE_STEP >= compressed.length);
    }
  } catch (error) {
    if (error instanceof ImportFailure) throw error;
    throw corrupt(`${entry.name} does not inflate (${error instanceof Error ? error.message : String(error)})`);
  }
  const result = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    result.set(chunk, offset);
    offset += chunk.length;
  }
  return result;
}

function compressedData(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  const at = entry.localHeaderOffset;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (at + 30 > bytes.length || view.getUint32(at, true) !== LOCAL_HEADER) throw corrupt(`${entry.name} has no local header`);
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const end = start + entry.compressedSize;
  if (end > bytes.length) throw corrupt(`${entry.name} runs past the end of the file`);
  return bytes.subarray(start, end);
}

function findEndOfDirectory(view: DataView): number {
  // The record is 22 bytes plus a comment of at most 65,535 bytes, at the very end of the file.
  const lowest = Math.max(0, view.byteLength - 22 - 0xffff);
  for (let at = view.byteLength - 22; at >= lowest; at--) {
    if (view.getUint32(at, true) === END_OF_DIRECTORY) return at;
  }
  throw corrupt('it is not a zip archive');
}

function readZip64End(view: DataView, end: number): { entryCount: number; directorySize: number; directoryOffset: number } {
  const locator = end - 20;
  if (locator < 0 || view.getUint32(locator, true) !== ZIP64_END_LOCATOR) throw corrupt('its zip64 directory is missing');
  const record = safeNumber(view.getBigUint64(locator + 8, true));
  if (record + 56 > view.byteLength || view.getUint32(record, true) !== ZIP64_END_OF_DIRECTORY) {
    throw corrupt('its zip64 directory is damaged');
  }
  return {
    entryCount: safeNumber(view.getBigUint64(record + 32, true)),
    directorySize: safeNumber(view.getBigUint64(record + 40, true)),
    directoryOffset: safeNumber(view.getBigUint64(record + 48, true)),
  };
}

type EntrySizes = Pick<ZipEntry, 'uncompressedSize' | 'compressedSize' | 'localHeaderOffset'>;

/** Sizes that do not fit 32 bits are in the zip64 extra field, in this order, only where the header says 0xffffffff. */
function zip64Sizes(view: DataView, extraStart: number, extraLength: number, sizes: EntrySizes): EntrySizes {
  const fields: Array<keyof EntrySizes> = ['uncompressedSize', 'compressedSize', 'localHeaderOffset'];
  if (!fields.some((field) => sizes[field] === U32_UNKNOWN)) return sizes;
  for (let at = extraStart; at + 4 <= extraStart + extraLength;) {
    const id = view.getUint16(at, true);
    const size = view.getUint16(at + 2, true);
    if (id === ZIP64_EXTRA_FIELD) {
      const result = { ...sizes };
      let field = at + 4;
      for (const name of fields) {
        if (sizes[name] !== U32_UNKNOWN) continue;
        if (field + 8 > at + 4 + size) throw corrupt('a zip64 extra field is damaged');
        result[name] = safeNumber(view.getBigUint64(field, true));
        field += 8;
      }
      return result;
    }
    at += 4 + size;
  }
  throw corrupt('a zip64 extra field is missing');
}

/** Names flagged UTF-8 are UTF-8; others are usually UTF-8 too in practice, else read as Latin-1. */
function decodeName(bytes: Uint8Array, flaggedUtf8: boolean): string {
  try {
    return new TextDecoder('utf-8', { fatal: !flaggedUtf8 }).decode(bytes);
  } catch {
    return new TextDecoder('latin1').decode(bytes);
  }
}

function safeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt('it declares impossible sizes');
  return Number(value);
}

function corrupt(reason: string): ImportFailure {
  return new ImportFailure(422, `the archive cannot be read: ${reason}`);
}
