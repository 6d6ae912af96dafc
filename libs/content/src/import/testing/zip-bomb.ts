/**
 * Archives that lie, for the zip specs: fflate's zipSync writes honest archives only, so these are
 * written byte by byte.
 */

/**
 * A raw deflate stream of 1 + 258 × `repeats` zero bytes: one literal zero, then `repeats` copies of
 * "repeat the last 258 bytes" in fixed Huffman codes (13 bits each), about 1:1,250.
 */
export function deflatedZeros(repeats: number): Uint8Array {
  const out = new Uint8Array(Math.ceil((3 + 8 + 13 * repeats + 7) / 8) + 1);
  let bitPosition = 0;
  /** Header fields: least significant bit first. */
  const writeBits = (value: number, count: number): void => {
    for (let bit = 0; bit < count; bit++, bitPosition++) {
      if ((value >> bit) & 1) out[bitPosition >> 3] |= 1 << (bitPosition & 7);
    }
  };
  /** Huffman codes: most significant bit first. */
  const writeCode = (code: number, count: number): void => {
    for (let bit = count - 1; bit >= 0; bit--, bitPosition++) {
      if ((code >> bit) & 1) out[bitPosition >> 3] |= 1 << (bitPosition & 7);
    }
  };
  writeBits(1, 1); // final block
  writeBits(1, 2); // fixed Huffman codes
  writeCode(0x30, 8); // literal 0
  for (let i = 0; i < repeats; i++) {
    writeCode(0xc5, 8); // length 258 (symbol 285)
    writeCode(0, 5); // distance 1
  }
  writeCode(0, 7); // end of block
  return out.subarray(0, Math.ceil(bitPosition / 8));
}

export interface RawZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: 0 | 8;
  data: Uint8Array;
  /** The uncompressed size the archive claims, true or not. */
  declaredSize: number;
}

/** A zip archive with the sizes as given (CRCs left zero: the importer does not check them). */
export function rawZip(entries: readonly RawZipEntry[]): Uint8Array {
  const parts: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(entry.method, 8);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(entry.method, 10);
    central.writeUInt32LE(entry.data.length, 20);
    central.writeUInt32LE(entry.declaredSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    parts.push(local, name, Buffer.from(entry.data));
    directory.push(central, name);
    offset += local.length + name.length + entry.data.length;
  }
  const directoryBytes = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directoryBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, directoryBytes, end]));
}
