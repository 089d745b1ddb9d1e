// ULIDs for the ids the UI mints itself (a note's moment id, a recall id,
// a job id): 48 bits of milliseconds then 80 random bits, written as 26
// characters of Crockford base32. Within one millisecond the random part is
// incremented, so ids minted by one page sort in the order they were made
// (oklog/ulid's monotonic entropy does the same).

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_LEN = 10;
const MAX_TIME = 2 ** 48 - 1;

export type RandomSource = (bytes: Uint8Array) => void;

const cryptoRandom: RandomSource = (bytes) => {
  globalThis.crypto.getRandomValues(bytes);
};

/** encodeTime writes ms as 10 base32 characters (big-endian, 5 bits each). */
export function encodeTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_TIME) {
    throw new RangeError(`ULID time out of range: ${ms}`);
  }
  let out = '';
  let t = ms;
  for (let i = 0; i < TIME_LEN; i++) {
    const mod = t % 32;
    out = ALPHABET.charAt(mod) + out;
    t = (t - mod) / 32;
  }
  return out;
}

/** encodeRandom writes 80 bits (10 bytes) as 16 base32 characters. */
function encodeRandom(bytes: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET.charAt((acc >> bits) & 31);
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

/** decodeTime returns the millisecond time of a ULID. */
export function decodeTime(id: string): number {
  const s = id.toUpperCase();
  if (!isULID(s)) {
    throw new Error(`not a ULID: ${id}`);
  }
  let t = 0;
  for (let i = 0; i < TIME_LEN; i++) {
    t = t * 32 + ALPHABET.indexOf(s.charAt(i));
  }
  return t;
}

/** isULID checks the form: 26 Crockford base32 characters, first 0-7. */
export function isULID(id: string): boolean {
  return /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/.test(id.toUpperCase());
}

/** Monotonic mints ULIDs that strictly increase, even within one millisecond. */
export class Monotonic {
  private lastTime = -1;
  private last = new Uint8Array(10);

  constructor(
    private readonly random: RandomSource = cryptoRandom,
    private readonly now: () => number = Date.now,
  ) {}

  next(): string {
    let t = this.now();
    if (t <= this.lastTime) {
      // Same millisecond (or a clock that stepped back): keep the last
      // time and add one to the random part, so the id sorts after.
      t = this.lastTime;
      if (!increment(this.last)) {
        throw new Error('ULID random part overflowed within one millisecond');
      }
    } else {
      this.lastTime = t;
      this.random(this.last);
    }
    return encodeTime(t) + encodeRandom(this.last);
  }
}

/** increment adds one to a big-endian number; false on overflow. */
function increment(b: Uint8Array): boolean {
  for (let i = b.length - 1; i >= 0; i--) {
    const v = b[i] ?? 0;
    if (v < 255) {
      b[i] = v + 1;
      return true;
    }
    b[i] = 0;
  }
  return false;
}

const shared = new Monotonic();

/** ulid returns a new ULID from the page's one monotonic source. */
export function ulid(): string {
  return shared.next();
}
