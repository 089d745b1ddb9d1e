// The reader of words' scheduling and wording (issue 37), apart from
// tesseract.js so that it is tested without it (test/ocrlane.test.ts): one
// job at a time through one worker, started when the first job comes and
// let go after a while without work, so that its memory goes back; a job
// after that starts it again. Also the tidying of the text read, and the
// errors, in words a caller can act on. No DOM, no tesseract here.
import { wordsLangCode } from './codes.js';

/** The timers the lane waits with: setTimeout by default, a fake in tests. */
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface LaneOptions<W> {
  /** start makes the worker: for the first job, and the first after it was let go. */
  start(): Promise<W>;
  /** stop lets a worker go (and its memory with it). Its failure is ignored. */
  stop(worker: W): Promise<unknown> | void;
  /** idleMs: how long the worker is kept without work. */
  idleMs: number;
  /** keep tells, of a job's error, that the worker is still sound; by
   * default a worker whose job failed is let go and the next job starts a
   * fresh one. */
  keep?: (err: unknown) => boolean;
  timers?: Timers;
}

export interface Lane<W> {
  /** run queues job; it runs once every job queued before it is done, with
   * the worker (started if need be). Its result or error comes back. */
  run<T>(job: (worker: W) => Promise<T>): Promise<T>;
  /** stop lets the worker go now: the job running and those queued are
   * rejected with a StoppedError. A job run after it starts a worker again. */
  stop(): Promise<void>;
  /** started: a worker is held (starting, working or idle). */
  readonly started: boolean;
  /** pending: jobs queued or running. */
  readonly pending: number;
}

/** StoppedError rejects the jobs that stop() cut short. */
export class StoppedError extends Error {
  constructor() {
    super('The reader of words was stopped before it read this photo.');
    this.name = 'StoppedError';
  }
}

interface Entry<W> {
  job: (worker: W) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

export function createLane<W>(opts: LaneOptions<W>): Lane<W> {
  const timers = opts.timers ?? realTimers;
  const keep = opts.keep ?? (() => false);
  const queue: Entry<W>[] = [];
  // held is the worker once started (boxed: W may be any value).
  let held: { worker: W } | null = null;
  let starting = false;
  let running = false;
  let idle: { handle: unknown } | null = null;
  // letting is the last stop under way: a start waits for it, so two
  // workers are never alive at once.
  let letting: Promise<void> = Promise.resolve();
  // cut rejects the job running, from stop().
  let cut: ((err: Error) => void) | null = null;

  function clearIdle(): void {
    if (idle) timers.clear(idle.handle);
    idle = null;
  }

  function release(): Promise<void> {
    clearIdle();
    const h = held;
    held = null;
    if (h) {
      letting = letting.then(
        () => Promise.resolve(opts.stop(h.worker)).then(
          () => undefined,
          () => undefined,
        ),
      );
    }
    return letting;
  }

  async function step(e: Entry<W>): Promise<void> {
    const abort = new Promise<never>((_, reject) => {
      cut = reject;
    });
    abort.catch(() => undefined);
    try {
      await Promise.race([letting, abort]);
      if (!held) {
        starting = true;
        const made = opts.start();
        let won = false;
        try {
          const worker = await Promise.race([made.then((w) => ((won = true), w)), abort]);
          held = { worker };
        } catch (err) {
          // Stopped while starting: the worker, if it comes, is let go.
          if (!won) made.then((w) => opts.stop(w), () => undefined).catch(() => undefined);
          throw err;
        } finally {
          starting = false;
        }
      }
      e.resolve(await Promise.race([e.job(held.worker), abort]));
    } catch (err) {
      e.reject(err);
      if (!(err instanceof StoppedError) && !keep(err)) void release();
    } finally {
      cut = null;
    }
  }

  async function drain(): Promise<void> {
    if (running) return;
    running = true;
    clearIdle();
    try {
      for (let e = queue.shift(); e; e = queue.shift()) await step(e);
    } finally {
      running = false;
    }
    if (held) {
      const handle = timers.set(() => {
        if (idle?.handle === handle) void release();
      }, opts.idleMs);
      idle = { handle };
    }
  }

  return {
    run<T>(job: (worker: W) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ job, resolve: resolve as (v: unknown) => void, reject });
        void drain();
      });
    },
    stop(): Promise<void> {
      const waiting = queue.splice(0);
      for (const e of waiting) e.reject(new StoppedError());
      cut?.(new StoppedError());
      return release();
    },
    get started() {
      return held !== null || starting;
    },
    get pending() {
      return queue.length + (running ? 1 : 0);
    },
  };
}

/** tidyText: each line without its trailing spaces, and no empty lines at
 * the start or the end (those between paragraphs stay). */
export function tidyText(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n').map((l) => l.replace(/[\s\u00a0]+$/u, ''));
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

/** The parts of tesseract.js's answer (its Page's blocks) that
 * confidentText reads: each word's text and confidence (0-100), in lines,
 * paragraphs and blocks. tesseract.js's own Block is one of these. */
export interface ReadWord {
  text: string;
  confidence: number;
}
export interface ReadLine {
  words: readonly ReadWord[];
  /** confidence: tesseract's of the whole line (0-100). */
  confidence?: number;
}
export interface ReadParagraph {
  lines: readonly ReadLine[];
}
export interface ReadBlock {
  paragraphs: readonly ReadParagraph[];
}

/** minConfidence: a word read with less confidence than this is left out.
 * Measured with tesseract.js 7 (English, LSTM) in Chromium, on printed
 * letters, labels and signs drawn at 16 to 90 pixels (blurred, noisy, as
 * PNG and as JPEG), and on textures and the camera photos of
 * ../shared/photos at 1,600 pixels, as PNG and as JPEG: at 85, 382 of
 * the 384 printed words are kept (a "Thank" read at 74 at 16 pixels, a
 * reference blurred by 3 pixels read at 80-85 are not) and, of the 5,421
 * marks read in the photos without text, only the 5 real words of a
 * banner (PARIS, LONGINES, JOONE); at 80, two marks more ("ive" in
 * gravel, "AWN" in hatching). */
export const minConfidence = 85;

/** minLineWord: a line is kept only if one of its sure words holds this
 * many letters or digits: lone letters, however sure ("NY A" read in the
 * grain of a photo), are not a line of text. */
export const minLineWord = 3;

/** minLineConfidence: a line tesseract is this sure of as a whole is a
 * line of text even when none of its words reaches minConfidence: a line
 * of codes and numbers ("HR8 2JF", "1 LITRE", "340g"), which tesseract's
 * dictionary does not know, reads at 50 to 80 a word. Over the 32 photos
 * without text measured for minConfidence (textures, ../shared/photos),
 * no line of 60 or more held a word of minLineWord letters or digits at
 * minWordInLine or more: nothing of them is kept. */
export const minLineConfidence = 60;

/** minWordInLine: in a line of text (minConfidence, minLineConfidence), a
 * word read with this confidence or more is kept: a number, a postcode or
 * a word the dictionary does not know ("monthly", "00231-887-4") reads
 * lower than the words around it, and dropping it dropped what Dad
 * searches for (docs/WORDS.md). */
export const minWordInLine = 40;

const lettersOrDigits = /[\p{L}\p{N}]/gu;

/** confidentText is the text of blocks without what was read with too
 * little confidence. A line is kept when one of its words of minLineWord
 * letters or digits was read with min or more, or the line as a whole with
 * minLineConfidence or more and that word with minWordInLine; in a line
 * kept, each word of minWordInLine or more that holds a letter or a
 * digit.
 * Lines of a paragraph on lines of their own, paragraphs and blocks apart
 * by an empty line. dropped: the words left out. */
export function confidentText(blocks: readonly ReadBlock[] | null | undefined, min: number = minConfidence): { text: string; dropped: number } {
  let dropped = 0;
  const paragraphs: string[] = [];
  for (const b of blocks ?? []) {
    for (const p of b.paragraphs) {
      const lines: string[] = [];
      for (const l of p.lines) {
        const sure: string[] = [];
        let anchored = false;
        const lineSure = (l.confidence ?? 0) >= minLineConfidence;
        for (const w of l.words) {
          const text = w.text.trim();
          if (text === '') continue;
          const n = text.match(lettersOrDigits)?.length ?? 0;
          if (n === 0 || w.confidence < minWordInLine) {
            dropped++;
            continue;
          }
          sure.push(text);
          if ((w.confidence >= min || lineSure) && n >= minLineWord) anchored = true;
        }
        if (anchored) lines.push(sure.join(' '));
        else dropped += sure.length;
      }
      if (lines.length > 0) paragraphs.push(lines.join('\n'));
    }
  }
  return { text: tidyText(paragraphs.join('\n\n')), dropped };
}

/** Kept is a reading with what it left out (confidentText). */
export interface Kept {
  text: string;
  dropped: number;
}

/** letters counts the letters and digits of text. */
function letters(text: string): number {
  return text.match(lettersOrDigits)?.length ?? 0;
}

/** wantsSecondLook says whether a reading did so badly that the photo is
 * read again with a local threshold: it left out a quarter or more of the
 * words it saw, or tesseract's confidence over the page (0-100) is under
 * secondLookBelow. One threshold for the whole picture loses the words in
 * a shadow, a local one loses fewer there but more on a clean label, so it
 * is tried only where the first did badly (docs/WORDS.md). */
export function wantsSecondLook(k: Kept, pageConfidence = 100): boolean {
  const kept = k.text.split(/\s+/).filter((w) => w !== '').length;
  return (k.dropped > 0 && k.dropped * 4 >= kept + k.dropped) || (kept > 0 && pageConfidence < secondLookBelow);
}

/** secondLookBelow: a page read with less confidence than this is read
 * again (wantsSecondLook). */
export const secondLookBelow = 80;

/** better is the reading of the two that kept more letters and digits, the
 * first on a tie. */
export function better(first: Kept, second: Kept): Kept {
  return letters(second.text) > letters(first.text) ? second : first;
}

/** isLangCode: a code of the shipped data, "eng", "chi_sim" (the shape
 * the Go side checks a choice of language against). */
export function isLangCode(lang: string): boolean {
  return wordsLangCode.test(lang);
}

/** ReadError is what a failed read rejects with: message says what went
 * wrong in a sentence; kind tells the caller what to do (start: the
 * reader's own files, try again later or rebuild; lang: that language is
 * not shipped; image: this photo can't be read, don't retry it; read:
 * anything else, may be retried); cause keeps tesseract's own words. */
export type ReadErrorKind = 'start' | 'lang' | 'image' | 'read';

export class ReadError extends Error {
  readonly kind: ReadErrorKind;
  constructor(kind: ReadErrorKind, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ReadError';
    this.kind = kind;
  }
}

/** rawMessage: what tesseract.js rejected with, which is often a string. */
export function rawMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  if (err && typeof err === 'object' && 'message' in err && typeof err.message === 'string') return err.message;
  return String(err);
}

/** explain words an error of tesseract.js, in the phase it came in
 * (start: making the worker and loading lang; read: reading a photo). */
export function explain(err: unknown, phase: 'start' | 'read', lang: string): Error {
  if (err instanceof ReadError || err instanceof StoppedError) return err;
  const raw = rawMessage(err);
  if (/traineddata/i.test(raw)) {
    return new ReadError('lang', `No words data for the language "${lang}" is in this build of Spark.`, err);
  }
  if (phase === 'start') {
    return new ReadError('start', 'The reader of words could not start: its files did not load. Try again, or reinstall Spark.', err);
  }
  if (/read image|image format|pix_?read|unsupported image|could not be read/i.test(raw)) {
    return new ReadError('image', 'This picture could not be opened to read its words: it is damaged, or not a JPEG, PNG, WebP, BMP or TIFF.', err);
  }
  return new ReadError('read', 'The words in this photo could not be read. Try again.', err);
}
