/** Images for the PDF renderer: PNG decoded here and re-encoded plainly; JPEG checked and passed through. */
import { constants as zlibConstants, crc32, deflateSync, inflateSync } from 'node:zlib';
import { PDF_LIMITS } from './pdf-limits';

export interface PreparedImage {
  /** PNG (re-encoded here) or JPEG bytes for pdfkit. */
  bytes: Buffer;
  /** Size as displayed, in pixels (a JPEG's EXIF orientation applied). */
  width: number;
  height: number;
}

/** An image ready for pdfkit, or null when its bytes are neither a sound PNG nor a sound JPEG. */
export function prepareImage(bytes: Buffer): PreparedImage | null {
  try {
    if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return decodePng(bytes);
    if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return checkJpeg(bytes);
  } catch {
    return null;
  }
  return null;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const PNG_DEPTHS: Readonly<Record<number, readonly number[]>> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};
const ADAM7: ReadonlyArray<readonly [number, number, number, number]> = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];

/**
 * Decodes a PNG (every colour type, bit depth and interlacing), lays transparency over white and
 * re-encodes it as 8-bit grey or RGB without interlacing: pdfkit embeds such a PNG as it is, while
 * it decodes others asynchronously and a corrupt one would throw outside any caller's reach.
 */
function decodePng(bytes: Buffer): PreparedImage | null {
  let header: { width: number; height: number; depth: number; colorType: number; interlaced: boolean } | null = null;
  let palette: Buffer | null = null;
  let transparency: Buffer | null = null;
  const idat: Buffer[] = [];
  let position = 8;
  while (position + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(position);
    const type = bytes.toString('latin1', position + 4, position + 8);
    const start = position + 8;
    const end = start + length;
    if (end + 4 > bytes.length) return null;
    const data = bytes.subarray(start, end);
    position = end + 4;
    if (!header && type !== 'IHDR') return null;
    if (type === 'IHDR') {
      if (length !== 13 || header) return null;
      const width = data.readUInt32BE(0);
      const height = data.readUInt32BE(4);
      const [depth, colorType, compression, filter, interlace] = [data[8], data[9], data[10], data[11], data[12]];
      if (width === 0 || height === 0 || width * height > PDF_LIMITS.imagePixels) return null;
      if (!PNG_DEPTHS[colorType]?.includes(depth) || compression !== 0 || filter !== 0 || interlace > 1) return null;
      header = { width, height, depth, colorType, interlaced: interlace === 1 };
    } else if (type === 'PLTE') {
      if (length % 3 !== 0 || length === 0 || length > 768) return null;
      palette = data;
    } else if (type === 'tRNS') {
      transparency = data;
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    }
  }
  if (!header || idat.length === 0) return null;
  const { width, height, depth, colorType, interlaced } = header;
  if (colorType === 3 && !palette) return null;
  const channels = PNG_CHANNELS[colorType];
  const bitsPerPixel = channels * depth;
  const filterStep = Math.max(1, bitsPerPixel >> 3);
  const passes = (interlaced ? ADAM7 : [[0, 0, 1, 1] as const]).map(([x0, y0, dx, dy]) => {
    const columns = width > x0 ? Math.ceil((width - x0) / dx) : 0;
    const rows = height > y0 ? Math.ceil((height - y0) / dy) : 0;
    return { x0, y0, dx, dy, columns, rows, rowBytes: Math.ceil((columns * bitsPerPixel) / 8) };
  });
  const expected = passes.reduce((sum, pass) => sum + (pass.columns > 0 ? pass.rows * (pass.rowBytes + 1) : 0), 0);
  if (expected > 4 * PDF_LIMITS.imagePixels) return null;
  const raw = inflateSync(Buffer.concat(idat), { maxOutputLength: expected, finishFlush: zlibConstants.Z_SYNC_FLUSH });
  if (raw.length < expected) return null;

  const gray = colorType === 0 || colorType === 4;
  const outChannels = gray ? 1 : 3;
  const out = Buffer.alloc(width * height * outChannels);
  const maxSample = (1 << depth) - 1;
  const grayKey = colorType === 0 && transparency && transparency.length >= 2 ? transparency.readUInt16BE(0) : -1;
  const rgbKey =
    colorType === 2 && transparency && transparency.length >= 6
      ? [transparency.readUInt16BE(0), transparency.readUInt16BE(2), transparency.readUInt16BE(4)]
      : null;
  const sample = (row: Buffer, index: number): number => {
    if (depth === 8) return row[index];
    if (depth === 16) return (row[2 * index] << 8) | row[2 * index + 1];
    const bit = index * depth;
    return (row[bit >> 3] >> (8 - depth - (bit & 7))) & maxSample;
  };
  const to8 = (value: number) => (depth === 16 ? value >> 8 : depth === 8 ? value : Math.round((value * 255) / maxSample));
  const over = (color: number, alpha: number) => (alpha === 255 ? color : Math.round((color * alpha + 255 * (255 - alpha)) / 255));

  let offset = 0;
  for (const pass of passes) {
    if (pass.columns === 0 || pass.rows === 0) continue;
    let previous = Buffer.alloc(pass.rowBytes);
    for (let r = 0; r < pass.rows; r++) {
      const filter = raw[offset];
      const row = Buffer.from(raw.subarray(offset + 1, offset + 1 + pass.rowBytes));
      offset += pass.rowBytes + 1;
      unfilter(filter, row, previous, filterStep);
      previous = row;
      const y = pass.y0 + r * pass.dy;
      for (let c = 0; c < pass.columns; c++) {
        const target = (y * width + pass.x0 + c * pass.dx) * outChannels;
        const base = c * channels;
        if (colorType === 3) {
          const index = sample(row, c);
          const alpha = transparency && index < transparency.length ? transparency[index] : 255;
          for (let k = 0; k < 3; k++) out[target + k] = over(palette![index * 3 + k] ?? 0, alpha);
        } else if (gray) {
          const value = sample(row, base);
          const alpha = colorType === 4 ? to8(sample(row, base + 1)) : value === grayKey ? 0 : 255;
          out[target] = over(to8(value), alpha);
        } else {
          const rgb = [sample(row, base), sample(row, base + 1), sample(row, base + 2)];
          const alpha = colorType === 6 ? to8(sample(row, base + 3)) : rgbKey && rgb.every((value, k) => value === rgbKey[k]) ? 0 : 255;
          for (let k = 0; k < 3; k++) out[target + k] = over(to8(rgb[k]), alpha);
        }
      }
    }
  }
  return { bytes: encodePng(out, width, height, gray ? 0 : 2), width, height };
}

function unfilter(filter: number, row: Buffer, previous: Buffer, step: number): void {
  switch (filter) {
    case 0:
      return;
    case 1:
      for (let i = step; i < row.length; i++) row[i] = (row[i] + row[i - step]) & 0xff;
      return;
    case 2:
      for (let i = 0; i < row.length; i++) row[i] = (row[i] + previous[i]) & 0xff;
      return;
    case 3:
      for (let i = 0; i < row.length; i++) row[i] = (row[i] + (((i >= step ? row[i - step] : 0) + previous[i]) >> 1)) & 0xff;
      return;
    case 4:
      for (let i = 0; i < row.length; i++) {
        const a = i >= step ? row[i - step] : 0;
        const b = previous[i];
        const c = i >= step ? previous[i - step] : 0;
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        row[i] = (row[i] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
      }
      return;
    default:
      throw new Error(`PNG filter ${filter}`);
  }
}

function encodePng(pixels: Buffer, width: number, height: number, colorType: 0 | 2): Buffer {
  const channels = colorType === 0 ? 1 : 3;
  const stride = width * channels;
  const rows = Buffer.alloc(height * (stride + 1));
  for (let y = 0; y < height; y++) pixels.copy(rows, y * (stride + 1) + 1, y * stride, (y + 1) * stride);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = colorType;
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(rows)), pngChunk('IEND', Buffer.alloc(0))]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write(type, 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return chunk;
}

/** The frame markers pdfkit reads a JPEG's size from (its own list, so both agree on the size). */
const JPEG_FRAMES = new Set([
  0xffc0, 0xffc1, 0xffc2, 0xffc3, 0xffc5, 0xffc6, 0xffc7, 0xffc8, 0xffc9, 0xffca, 0xffcb, 0xffcc, 0xffcd, 0xffce, 0xffcf,
]);

/** A JPEG whose frame header pdfkit will read as a sane 8-bit grey, RGB or CMYK image; the pixels are the viewer's to decode. */
function checkJpeg(bytes: Buffer): PreparedImage | null {
  const u16 = (at: number) => (at + 1 < bytes.length ? bytes.readUInt16BE(at) : 0);
  let position = 2;
  let marker = 0;
  while (position < bytes.length) {
    while (position < bytes.length && bytes[position] !== 0xff) position++;
    if (position >= bytes.length) break;
    marker = u16(position);
    position += 2;
    if (JPEG_FRAMES.has(marker)) break;
    position += u16(position);
  }
  if (!JPEG_FRAMES.has(marker) || position + 8 > bytes.length) return null;
  const bits = bytes[position + 2];
  const height = bytes.readUInt16BE(position + 3);
  const width = bytes.readUInt16BE(position + 5);
  const components = bytes[position + 7];
  if (bits !== 8 || width === 0 || height === 0 || ![1, 3, 4].includes(components) || width * height > PDF_LIMITS.imagePixels) return null;
  // pdfkit turns the image by its EXIF orientation: 5 to 8 swap width and height.
  return jpegOrientation(bytes) > 4 ? { bytes, width: height, height: width } : { bytes, width, height };
}

/** The EXIF orientation as pdfkit reads it (1 when absent). */
function jpegOrientation(data: Buffer): number {
  if (data.length < 20) return 1;
  const u16be = (at: number) => (at + 1 < data.length ? data.readUInt16BE(at) : 0);
  let position = 2;
  while (position < data.length - 4) {
    while (position < data.length && data[position] !== 0xff) position++;
    if (position >= data.length - 4) return 1;
    const marker = u16be(position);
    position += 2;
    if (marker === 0xffda) return 1;
    if ((marker >= 0xffd0 && marker <= 0xffd9) || marker === 0xff01) continue;
    if (position + 2 > data.length) return 1;
    const length = u16be(position);
    if (marker === 0xffe1 && position + 8 <= data.length && data.toString('latin1', position + 2, position + 8) === 'Exif\0\0') {
      const tiff = position + 8;
      if (tiff + 8 > data.length) return 1;
      const order = data.toString('latin1', tiff, tiff + 2);
      if (order !== 'II' && order !== 'MM') return 1;
      const little = order === 'II';
      const read16 = (at: number) => (at + 2 <= data.length ? (little ? data.readUInt16LE(at) : data.readUInt16BE(at)) : 0);
      const read32 = (at: number) => (at + 4 <= data.length ? (little ? data.readUInt32LE(at) : data.readUInt32BE(at)) : 0);
      if (read16(tiff + 2) !== 42) return 1;
      const ifd = tiff + read32(tiff + 4);
      if (ifd + 2 > data.length) return 1;
      const entries = read16(ifd);
      for (let index = 0; index < entries; index++) {
        const entry = ifd + 2 + index * 12;
        if (entry + 12 > data.length) return 1;
        if (read16(entry) === 0x0112) {
          const value = read16(entry + 8);
          return value >= 1 && value <= 8 ? value : 1;
        }
      }
      return 1;
    }
    position += length;
  }
  return 1;
}
