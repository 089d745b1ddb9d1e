// The words in Dad's photos, found on this computer (issue 37): every
// photo the window learns of that has no words yet is read by the reader
// of words (ocr.ts, tesseract.js, shipped inside Spark), one at a time,
// after a pause, and its words go to the engine through the outbox
// (Moments.SetWords): the first words of a photo are kept, whichever
// computer read them. A photo with no words is kept so too (empty words),
// so that it is not read again.
import { backend, type Moment } from './backend';
import { createReader, ReadError, type Reader } from './ocr';
import { onMoment } from './store';

/** The language Spark reads in: English, the one shipped today. */
const LANG = 'eng';

/** pauseMs is the wait before each reading: Spark's own work (a capture,
 * the first paint) goes first. */
const pauseMs = 1500;

/** needsWords says whether the window should read m's photo: a photo the
 * engine has, with a small copy, never read. */
export function needsWords(m: Moment): boolean {
  return m.kind === 'photo' && !m.pending && !!m.thumb && !m.words_lang && !m.deleted_at;
}

/** enabled: localStorage "spark.readWords" = "off" turns the reader off
 * (the browser tests of other screens do, so that their timings are their
 * own). */
function enabled(): boolean {
  try {
    return localStorage.getItem('spark.readWords') !== 'off';
  } catch {
    return true;
  }
}

const tried = new Set<string>();
const queue: { id: string; url: string }[] = [];
let running = false;
let reader: Reader | null = null;
let wired = false;

/** offerWords queues, once per session, the photos of ms that have no
 * words yet. */
export function offerWords(ms: readonly Moment[]): void {
  if (!enabled()) return;
  if (!wired) {
    wired = true;
    // A moment that changes (a photo sent, one synced from another
    // computer) is offered too.
    onMoment((e) => {
      if (e.moment) offerWords([e.moment]);
    });
  }
  for (const m of ms) {
    if (!needsWords(m) || tried.has(m.id)) continue;
    tried.add(m.id);
    queue.push({ id: m.id, url: m.thumb });
  }
  void pump();
}

async function pump(): Promise<void> {
  if (running) return;
  running = true;
  try {
    for (let next = queue.shift(); next; next = queue.shift()) {
      await new Promise((r) => window.setTimeout(r, pauseMs));
      reader ??= createReader();
      try {
        const got = await reader.read(next.url, LANG);
        await backend.moments.setWords(next.id, got.text, got.lang);
      } catch (e) {
        // A photo the reader cannot read is left, for this session; any
        // other failure (the reader did not start, the outbox refused) may
        // pass: the photo is offered again the next time it shows.
        if (!(e instanceof ReadError && e.kind === 'image')) tried.delete(next.id);
      }
    }
  } finally {
    running = false;
  }
}
