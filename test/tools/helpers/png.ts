/**
 * A small PNG decoder for checking charts: the signature, IHDR's size, and the pixels (8-bit RGBA or
 * RGB, non-interlaced, the five scanline filters), so a test can say a chart is not blank.
 */
import zlib from 'node:zlib';

export interface DecodedPng {
  width: number;
  height: number;
  /** Pixels as RGBA, row by row. */
  rgba: Uint8Array;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Decode `png`; throws on anything that is not a PNG this decoder reads. */
export function decodePng(png: Uint8Array): DecodedPng {
  const buf = Buffer.from(png);
  if (!buf.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat: Buffer[] = [];
  while (offset < buf.length) {
    const length = buf.readUInt32BE(offset);
    const type = buf.toString('latin1', offset + 4, offset + 8);
    const data = buf.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error('only 8-bit, non-interlaced PNGs');
      colorType = data[9]!;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    offset += 12 + length;
  }
  const channels = colorType === 6 ? 4 : colorType === 2 ? 3 : 0;
  if (!channels) throw new Error(`colour type ${colorType} not supported`);
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const upLeft = y > 0 && x >= channels ? pixels[(y - 1) * stride + x - channels]! : 0;
      const predictor = [0, left, up, (left + up) >> 1, paeth(left, up, upLeft)][filter];
      if (predictor === undefined) throw new Error(`bad filter ${filter}`);
      pixels[y * stride + x] = (line[x]! + predictor) & 0xff;
    }
  }
  if (channels === 4) return { width, height, rgba: pixels };
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) rgba.set([pixels[i * 3]!, pixels[i * 3 + 1]!, pixels[i * 3 + 2]!, 255], i * 4);
  return { width, height, rgba };
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Share of pixels that are not (near) white: 0 for a blank image. */
export function inkShare(image: DecodedPng): number {
  let ink = 0;
  for (let i = 0; i < image.rgba.length; i += 4) {
    if (image.rgba[i]! < 230 || image.rgba[i + 1]! < 230 || image.rgba[i + 2]! < 230) ink += 1;
  }
  return ink / (image.width * image.height);
}

/** Whether some pixel is clearly coloured (not grey): the marks, not just black axes and text. */
export function hasColour(image: DecodedPng): boolean {
  for (let i = 0; i < image.rgba.length; i += 4) {
    const [r, g, b] = [image.rgba[i]!, image.rgba[i + 1]!, image.rgba[i + 2]!];
    if (Math.max(r, g, b) - Math.min(r, g, b) > 60) return true;
  }
  return false;
}
