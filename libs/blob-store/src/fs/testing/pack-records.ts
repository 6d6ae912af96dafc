import { readFileSync } from 'node:fs';

/** The records of a pack file, as text (`<removed>` for a record whose hash was zeroed). */
export function packRecords(path: string): string[] {
  const bytes = readFileSync(path);
  const records: string[] = [];
  for (let offset = 0; offset + 36 <= bytes.length;) {
    const length = bytes.readUInt32BE(offset + 32);
    const removed = bytes.subarray(offset, offset + 32).every((byte) => byte === 0);
    records.push(removed ? '<removed>' : bytes.subarray(offset + 36, offset + 36 + length).toString());
    offset += 36 + length;
  }
  return records;
}
