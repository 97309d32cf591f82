// A QR Code encoder (ISO/IEC 18004): byte mode (UTF-8), error correction level M,
// versions 1–15 (up to 412 bytes), so the app can show a calendar feed's webcal:// link
// as a code a phone camera reads. No dependencies.

// Per version at level M: [error correction codewords per block, data codewords of each block].
const BLOCKS = [
  null,
  [10, [16]], [16, [28]], [26, [44]], [18, [32, 32]], [24, [43, 43]],
  [16, [27, 27, 27, 27]], [18, [31, 31, 31, 31]], [22, [38, 38, 39, 39]],
  [22, [36, 36, 36, 37, 37]], [26, [43, 43, 43, 43, 44]],
  [30, [50, 51, 51, 51, 51]], [22, [36, 36, 36, 36, 36, 36, 37, 37]],
  [22, [37, 37, 37, 37, 37, 37, 37, 37, 38]], [24, [40, 40, 40, 40, 41, 41, 41, 41, 41]],
  [24, [41, 41, 41, 41, 41, 42, 42, 42, 42, 42]],
];
const ALIGNMENT = [
  null, [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46],
  [6, 28, 50], [6, 30, 54], [6, 32, 58], [6, 34, 62], [6, 26, 46, 66], [6, 26, 48, 70],
];
const MAX_VERSION = BLOCKS.length - 1;

// GF(256) with the polynomial x^8 + x^4 + x^3 + x^2 + 1, as log and antilog tables.
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++) {
  EXP[i] = x;
  LOG[x] = i;
  x <<= 1;
  if (x & 0x100) x ^= 0x11d;
}
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
const multiply = (a, b) => (a && b ? EXP[LOG[a] + LOG[b]] : 0);

// The generator polynomial (x - α^0)…(x - α^(n-1)), highest power first, leading 1 dropped.
function generator(degree) {
  let poly = [1];
  for (let i = 0; i < degree; i++) {
    const next = new Array(poly.length + 1).fill(0);
    for (let j = 0; j < poly.length; j++) {
      next[j] ^= poly[j];
      next[j + 1] ^= multiply(poly[j], EXP[i]);
    }
    poly = next;
  }
  return poly.slice(1);
}

// The remainder of data·x^n divided by the generator: the block's error correction codewords.
function reedSolomon(data, degree) {
  const gen = generator(degree);
  const rest = new Array(degree).fill(0);
  for (const byte of data) {
    const factor = byte ^ rest.shift();
    rest.push(0);
    for (let i = 0; i < degree; i++) rest[i] ^= multiply(gen[i], factor);
  }
  return rest;
}

const capacity = (version) => BLOCKS[version][1].reduce((a, b) => a + b, 0);
const countBits = (version) => (version < 10 ? 8 : 16);

// The smallest version whose data codewords hold mode, count and the bytes.
function chooseVersion(length) {
  for (let v = 1; v <= MAX_VERSION; v++) {
    if (4 + countBits(v) + 8 * length <= 8 * capacity(v)) return v;
  }
  throw new Error(`QR code: text too long (${length} bytes in UTF-8; at most ${capacity(MAX_VERSION) - 3} fit)`);
}

// Mode, count, bytes, terminator and padding, split into blocks, each with its error
// correction, then interleaved as the symbol carries them.
function codewords(bytes, version) {
  const bits = [];
  const put = (value, count) => { for (let i = count - 1; i >= 0; i--) bits.push((value >>> i) & 1); };
  put(0b0100, 4);
  put(bytes.length, countBits(version));
  for (const b of bytes) put(b, 8);
  const total = capacity(version) * 8;
  put(0, Math.min(4, total - bits.length));
  while (bits.length % 8) bits.push(0);
  const data = [];
  for (let i = 0; i < bits.length; i += 8) data.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  for (let pad = 0xec; data.length < capacity(version); pad ^= 0xec ^ 0x11) data.push(pad);

  const [ecLength, sizes] = BLOCKS[version];
  const blocks = [];
  let at = 0;
  for (const size of sizes) {
    const block = data.slice(at, at + size);
    at += size;
    blocks.push({ data: block, ec: reedSolomon(block, ecLength) });
  }
  const out = [];
  for (let i = 0; i < sizes[sizes.length - 1]; i++) for (const b of blocks) if (i < b.data.length) out.push(b.data[i]);
  for (let i = 0; i < ecLength; i++) for (const b of blocks) out.push(b.ec[i]);
  return out;
}

// The remainder of value·x^(degree) modulo poly (BCH codes of the format and version bits).
function bch(value, poly, degree) {
  let rest = value << degree;
  for (let i = 31 - Math.clz32(rest); i >= degree; i--) if (rest & (1 << i)) rest ^= poly << (i - degree);
  return (value << degree) | rest;
}

const MASKS = [
  (x, y) => (x + y) % 2 === 0,
  (x, y) => y % 2 === 0,
  (x, y) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

class QrSymbol {
  constructor(version) {
    this.version = version;
    this.size = 17 + 4 * version;
    this.dark = new Uint8Array(this.size * this.size);
    this.fixed = new Uint8Array(this.size * this.size); // function patterns: data and masks skip them
  }

  get(x, y) { return this.dark[y * this.size + x] === 1; }

  setFixed(x, y, dark) {
    this.dark[y * this.size + x] = dark ? 1 : 0;
    this.fixed[y * this.size + x] = 1;
  }

  drawFunctionPatterns() {
    const n = this.size;
    for (let i = 0; i < n; i++) {
      this.setFixed(6, i, i % 2 === 0);
      this.setFixed(i, 6, i % 2 === 0);
    }
    // Finders with their light separators.
    for (const [cx, cy] of [[3, 3], [n - 4, 3], [3, n - 4]]) {
      for (let dy = -4; dy <= 4; dy++) for (let dx = -4; dx <= 4; dx++) {
        const x = cx + dx, y = cy + dy;
        if (x < 0 || y < 0 || x >= n || y >= n) continue;
        const ring = Math.max(Math.abs(dx), Math.abs(dy));
        this.setFixed(x, y, ring !== 2 && ring !== 4);
      }
    }
    const centres = ALIGNMENT[this.version];
    const last = centres.length - 1;
    for (let i = 0; i <= last; i++) for (let j = 0; j <= last; j++) {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) continue; // under a finder
      for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) {
        this.setFixed(centres[i] + dx, centres[j] + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }
    }
    this.drawFormat(0); // reserves the format areas; drawn again once the mask is chosen
    if (this.version >= 7) {
      const bits = bch(this.version, 0x1f25, 12);
      for (let i = 0; i < 18; i++) {
        const dark = ((bits >>> i) & 1) === 1;
        const a = n - 11 + (i % 3), b = Math.floor(i / 3);
        this.setFixed(a, b, dark);
        this.setFixed(b, a, dark);
      }
    }
  }

  // Level M is 00; the 15 bits are masked with 101010000010010 so they are never all light.
  drawFormat(mask) {
    const bits = bch(mask, 0x537, 10) ^ 0x5412;
    const bit = (i) => ((bits >>> i) & 1) === 1;
    const n = this.size;
    for (let i = 0; i <= 5; i++) this.setFixed(8, i, bit(i));
    this.setFixed(8, 7, bit(6));
    this.setFixed(8, 8, bit(7));
    this.setFixed(7, 8, bit(8));
    for (let i = 9; i < 15; i++) this.setFixed(14 - i, 8, bit(i));
    for (let i = 0; i < 8; i++) this.setFixed(n - 1 - i, 8, bit(i));
    for (let i = 8; i < 15; i++) this.setFixed(8, n - 15 + i, bit(i));
    this.setFixed(8, n - 8, true); // the dark module
  }

  // Two columns at a time from the right, up then down, skipping the vertical timing column.
  placeData(words) {
    const n = this.size;
    let i = 0;
    for (let right = n - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5;
      const upward = ((right + 1) & 2) === 0;
      for (let step = 0; step < n; step++) {
        const y = upward ? n - 1 - step : step;
        for (let x = right; x > right - 2; x--) {
          if (this.fixed[y * n + x]) continue;
          const dark = i < words.length * 8 && ((words[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
          this.dark[y * n + x] = dark ? 1 : 0;
          i++;
        }
      }
    }
  }

  applyMask(mask) {
    const n = this.size, test = MASKS[mask];
    for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) {
      if (!this.fixed[y * n + x] && test(x, y)) this.dark[y * n + x] ^= 1;
    }
  }

  // The four penalty rules: runs of five or more, 2×2 blocks, finder-like 1:1:3:1:1 runs
  // with four light modules beside, and a dark share away from half.
  penalty() {
    const n = this.size;
    let score = 0, darkCount = 0;
    const finderLike = [1, 0, 1, 1, 1, 0, 1];
    for (let pass = 0; pass < 2; pass++) {
      const at = pass === 0 ? (a, b) => this.get(b, a) : (a, b) => this.get(a, b);
      for (let a = 0; a < n; a++) {
        let run = 0;
        for (let b = 0; b < n; b++) {
          run = b > 0 && at(a, b) === at(a, b - 1) ? run + 1 : 1;
          if (run === 5) score += 3;
          else if (run > 5) score += 1;
          // A finder-like run starting at b, with four light modules (or the edge) on one side.
          if (b + 7 <= n && finderLike.every((v, k) => at(a, b + k) === (v === 1))) {
            const light = (from, to) => { for (let k = from; k < to; k++) if (k >= 0 && k < n && at(a, k)) return false; return true; };
            if (light(b - 4, b)) score += 40;
            if (light(b + 7, b + 11)) score += 40;
          }
        }
      }
    }
    for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) {
      const d = this.get(x, y);
      if (d) darkCount++;
      if (x < n - 1 && y < n - 1 && d === this.get(x + 1, y) && d === this.get(x, y + 1) && d === this.get(x + 1, y + 1)) score += 3;
    }
    score += Math.floor(Math.abs(darkCount * 100 / (n * n) - 50) / 5) * 10;
    return score;
  }
}

/** The modules of `text`'s QR code: `{size, version, dark(x, y)}` (no quiet zone). */
export function qrMatrix(text) {
  const bytes = new TextEncoder().encode(String(text));
  const version = chooseVersion(bytes.length);
  const words = codewords(bytes, version);
  let best = null, bestScore = Infinity;
  for (let mask = 0; mask < 8; mask++) {
    const symbol = new QrSymbol(version);
    symbol.drawFunctionPatterns();
    symbol.placeData(words);
    symbol.applyMask(mask);
    symbol.drawFormat(mask);
    const score = symbol.penalty();
    if (score < bestScore) { best = symbol; bestScore = score; }
  }
  return { size: best.size, version, dark: (x, y) => best.get(x, y) };
}

const SVG = "http://www.w3.org/2000/svg";

/** An `<svg>` of `text`'s QR code: dark modules as one path on a light square with a
 *  four-module quiet zone (light and dark themes alike: cameras need dark on light). */
export function qrSvg(text, label) {
  const matrix = qrMatrix(text);
  const side = matrix.size + 8;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${side} ${side}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label || `QR code: ${text}`);
  svg.setAttribute("shape-rendering", "crispEdges");
  svg.classList.add("qr");
  const back = document.createElementNS(SVG, "rect");
  back.setAttribute("width", side);
  back.setAttribute("height", side);
  back.setAttribute("fill", "#fff");
  svg.append(back);
  let d = "";
  for (let y = 0; y < matrix.size; y++) {
    for (let x = 0; x < matrix.size; x++) {
      if (!matrix.dark(x, y)) continue;
      let run = 1;
      while (x + run < matrix.size && matrix.dark(x + run, y)) run++;
      d += `M${x + 4} ${y + 4}h${run}v1h-${run}z`;
      x += run - 1;
    }
  }
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", d);
  path.setAttribute("fill", "#000");
  svg.append(path);
  return svg;
}
