// The words in Dad's photos, found on this computer (issue 37): every
// photo the window learns of that has no words yet is read by the reader
// of words (ocr.ts, tesseract.js, shipped inside Spark), one at a time,
// what just arrived first (readqueue.ts), and its words go to the engine
// through the outbox (Moments.SetWords): the first words of a photo are
// kept, whichever computer read them. A photo with no words is kept so too
// (empty words), so that it is not read again.
import { backend, type Moment } from './backend';
import { createReader, languages, ReadError, type Reader } from './ocr';
import { ReadQueue } from './readqueue';
import { onMoment } from './store';

/** The language read in when none was chosen (app.WordsDefault). */
const defaultLang = 'eng';

/** The choice that turns the reader off (app.WordsOff). */
export const wordsOff = 'off';

/** pauseMs is the wait before the first reading after the reader was
 * idle: Spark's own work (a capture, the first paint) goes first. */
const pauseMs = 1500;

/** betweenMs is the wait between two readings: none. The reading runs in
 * the reader's Web Worker, not on the window's thread, and the next photo
 * is taken after a turn of the event loop (a photo that arrived meanwhile
 * goes first). A wait of 200 ms idled the reader for 20 s in an import of
 * 100 photos, with nothing gained: keys showed in search in 7-9 ms
 * (median) with it or without it (e2e/tests/wordsimport.test.mjs). */
const betweenMs = 0;

/** needsWords says whether the window should read m's photo: a photo
 * with a small copy, never read. A capture not sent yet is read too, from
 * its small copy on this computer: its words show at once, offline, and
 * wait in the outbox behind it (the engine can keep them only once it has
 * the photo). */
export function needsWords(m: Moment): boolean {
  return m.kind === 'photo' && !!m.thumb && !m.words_lang && !m.deleted_at;
}

/** choice is Dad's choice in Settings, "Words in photos": the language
 * to read in ("eng"), or wordsOff; null until read from the settings
 * (the browser tests turn it off there, so that their timings are their
 * own). */
let choice: string | null = null;
let loading: Promise<void> | null = null;

function loadChoice(): Promise<void> {
  loading ??= backend.settings.get().then(
    (s) => {
      choice ??= s.words_lang || defaultLang;
    },
    () => {
      // Not ready yet: asked again at the next offer.
      loading = null;
    },
  );
  return loading;
}

/** shippedLanguages lists the codes of the languages this build of Spark
 * reads ("eng"): one per @tesseract.js-data package (scripts/ocr-assets.mjs). */
export function shippedLanguages(): Promise<string[]> {
  return languages().catch(() => [defaultLang]);
}

/** setWordsChoice takes the choice Settings just saved. What waited
 * was for the choice before, and goes: off lets the reader go; a language
 * reads the photos without words from now on, the newest first (a photo
 * read already keeps its words). */
export function setWordsChoice(lang: string): void {
  if (lang === choice) return;
  choice = lang;
  queue.clear();
  tried.clear();
  if (lang === wordsOff) {
    void reader?.stop();
    return;
  }
  void backend.moments.page('', 60).then(
    (p) => offerWords(p.moments),
    () => undefined,
  );
}

const tried = new Set<string>();
const queue = new ReadQueue();
let running = false;
let reader: Reader | null = null;
let wired = false;
/** engine counts the switches of engine, so that a reading started for
 * one engine's photo is not sent to the next. */
let engine = 0;

/** offerWords queues, once per session, the photos of ms that have no
 * words yet: behind what waits when a screen listed them, ahead of it
 * when they have just arrived (fresh). */
export function offerWords(ms: readonly Moment[], fresh = false): void {
  if (choice === null) {
    void loadChoice().then(() => {
      if (choice !== null) offerWords(ms, fresh);
    });
    return;
  }
  if (choice === wordsOff) return;
  if (!wired) {
    wired = true;
    // A moment that changes (a photo sent, one synced from another
    // computer) is offered too.
    onMoment((e) => {
      if (e.moment) offerWords([e.moment], true);
    });
    // Another engine chosen: the photos that waited are the other
    // engine's, and a reading under way is for it; the new engine's
    // photos are offered as its screens list them.
    backend.onEngine(() => {
      engine++;
      queue.clear();
      tried.clear();
    });
  }
  for (const m of ms) {
    if (!needsWords(m)) continue;
    const p = { id: m.id, url: m.thumb };
    if (fresh && tried.has(m.id)) {
      // Queued already and not read yet: it moves to the front. (One
      // read or being read is no longer queued, and stays where it is.)
      if (queue.has(m.id)) queue.arrived(p);
      continue;
    }
    if (tried.has(m.id)) continue;
    tried.add(m.id);
    if (fresh) queue.arrived(p);
    else queue.listed(p);
  }
  void pump();
}

async function pump(): Promise<void> {
  if (running) return;
  running = true;
  try {
    let wait = pauseMs;
    while (queue.length > 0) {
      await new Promise((r) => window.setTimeout(r, wait));
      wait = betweenMs;
      // Taken after the pause, so that a photo that arrived meanwhile goes
      // first.
      const next = queue.next();
      if (!next) break;
      const lang = choice;
      if (lang === null || lang === wordsOff) {
        tried.delete(next.id);
        continue;
      }
      reader ??= createReader();
      const of = engine;
      try {
        const got = await reader.read(next.url, lang);
        if (of !== engine) continue;
        await backend.moments.setWords(next.id, got.text, got.lang);
      } catch (e) {
        // A photo the reader cannot read, or a language this build has no
        // data for, is left, for this session; any other failure (the
        // reader did not start, the outbox refused, Settings turned it off)
        // may pass: the photo is offered again the next time it shows.
        if (!(e instanceof ReadError && (e.kind === 'image' || e.kind === 'lang'))) tried.delete(next.id);
      }
    }
  } finally {
    running = false;
  }
}
