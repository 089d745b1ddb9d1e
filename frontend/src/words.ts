// The words the UI shows for what the Go side reports: readings, their
// states and their errors, in sentences a person can act on. Pure
// functions (no DOM), so the unit tests run them in Node.

/** The fields of a reading (app.Reading) these functions look at. */
export interface ReadingLike {
  mode: string;
  status: string;
  text: string;
  error: string;
  startedAt?: string;
}

/** The fields of a moment (app.Moment) these functions look at. */
export interface MomentLike {
  kind: string;
  pending: boolean;
  readings: ReadingLike[] | null;
}

/** drawable are the types the webview can draw; an original of another
 * type (HEIC) is shown as its small copy. */
export const drawable = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif']);

/** kindWord names a moment's kind for a person. */
export function kindWord(m: { kind: string }): string {
  return m.kind === 'note' ? 'Note' : m.kind === 'recall' ? 'Quick recall' : 'Photo';
}

/** latest is the reading to show first: the newest finished one, else the
 * newest of any state (so a running or failed reading shows while there is
 * nothing better). Readings come oldest first. */
export function latest<R extends ReadingLike>(readings: R[] | null): R | null {
  const rs = readings ?? [];
  for (let i = rs.length - 1; i >= 0; i--) {
    const r = rs[i];
    if (r && r.status === 'finished' && r.text) return r;
  }
  return rs.at(-1) ?? null;
}

/** busy tells whether Pippa is still on one of the moment's readings. */
export function busy(m: MomentLike): boolean {
  return (m.readings ?? []).some((r) => r.status === 'queued' || r.status === 'running');
}

/** Preview is what a card or tile says under its picture. */
export interface Preview {
  /** state: 'reading' when text holds Pippa's words. */
  state: 'reading' | 'working' | 'waiting' | 'failed' | 'none' | 'pending';
  text: string;
}

/** preview says what a card or tile shows of a moment's readings. */
export function preview(m: MomentLike): Preview {
  if (m.pending) return { state: 'pending', text: 'On this computer. Pippa will read it once it is sent.' };
  const r = latest(m.readings);
  if (r && r.status === 'finished' && r.text) return { state: 'reading', text: r.text };
  if (busy(m)) {
    const running = (m.readings ?? []).some((x) => x.status === 'running');
    return running ? { state: 'working', text: 'Pippa is reading it…' } : { state: 'waiting', text: 'Waiting for Pippa…' };
  }
  if (r && r.status === 'failed') return { state: 'failed', text: 'Pippa could not read it. Open it to try again.' };
  if (m.kind === 'note') return { state: 'none', text: '' };
  return { state: 'none', text: 'No reading yet.' };
}

/** Explained is an error in a sentence, with the raw detail kept apart. */
export interface Explained {
  sentence: string;
  detail: string;
}

/** readingError turns a failed reading's error (the engine's words, with
 * addresses and Go errors in them) into a sentence; the raw text becomes
 * the detail behind "Details". */
export function readingError(raw: string): Explained {
  const detail = raw.trim();
  let sentence = 'Pippa could not read this. Press “Try again”.';
  if (/did not answer|connection refused|no such host|timeout|deadline|unreachable/i.test(raw)) {
    sentence = 'Pippa did not answer. Check that the program that runs Pippa is started (on this computer that is usually Ollama), then press “Try again”.';
  } else if (/refused the request|401|403|api key|unauthori[sz]ed/i.test(raw)) {
    sentence = 'Pippa turned the request down. Check Pippa’s address, model and key in Settings, then press “Try again”.';
  } else if (/larger than a small copy/i.test(raw)) {
    sentence = 'This picture is too large for Pippa to look at. Add it again so Spark makes a smaller copy.';
  } else if (/no text|no choices|not an OpenAI|neither text/i.test(raw)) {
    sentence = 'Pippa answered, but with nothing to read. Press “Try again”; if it happens again, choose another model in Settings.';
  }
  return { sentence, detail };
}

/** problem turns an error code and message of a failed call (app.UIError)
 * into a sentence and a detail. The app's own messages are already written
 * for a person; the engine's are kept as the detail. */
export function problem(code: string, message: string): Explained {
  switch (code) {
    case 'offline':
      return { sentence: 'Spark can’t reach where your moments are kept right now. Try again when the connection is back; anything you add meanwhile waits safely on this computer.', detail: message };
    case 'unauthorized':
      return { sentence: 'The family engine did not accept Spark’s key. Paste its connection text again in Settings.', detail: message };
    case 'not_ready':
      return { sentence: 'Spark is still starting. Try again in a moment.', detail: message };
    case 'no_phrases':
      return { sentence: 'Keep a phrase first: select some words in one of Pippa’s readings and choose “Keep this phrase”.', detail: '' };
    case 'moment_deleted':
    case 'not_found':
      return { sentence: 'This moment is no longer there: it was deleted, perhaps on another computer.', detail: message };
    case 'bad_input':
    case 'failed':
    case 'canceled':
      return { sentence: message, detail: '' };
    default:
      // A text the engine will not keep because of its length (a caption
      // past the engine's cap, say).
      if (/too_(large|long)|caption/i.test(code) || /too long|longer than|at most \d+ bytes/i.test(message)) {
        return { sentence: 'This is too long to keep. Shorten it and it is saved on its own.', detail: message };
      }
      return { sentence: 'Something went wrong. Try again; if it keeps happening, the details below help whoever looks after Spark.', detail: message };
  }
}

/** parkedAdvice says, for a capture the engine refused, what the person
 * can do, and which action can work: retrying only helps when something
 * changed on the engine's side. */
export function parkedAdvice(code: string): { sentence: string; main: 'save' | 'retry' } {
  switch (code) {
    case 'media_too_large':
      return {
        sentence: 'This photo is too large to be accepted where your moments are kept, so sending it again will not help. Save the original somewhere safe. If whoever looks after Spark raises the limit, press “Send again”.',
        main: 'save',
      };
    case 'unknown_moment':
    case 'media_conflict':
    case 'request_id_reused':
    case 'bad_media_ref':
      return { sentence: 'This photo was not accepted where your moments are kept. Save the original somewhere safe; then you can remove it from this list and add it again.', main: 'save' };
    default:
      return { sentence: 'This photo was not accepted where your moments are kept. Press “Send again”; if it is refused again, save the original somewhere safe.', main: 'retry' };
  }
}

/** Tally is how many photos, notes and other changes there are of
 * something in the outbox (app.Tally): the words the Outbox uses, a note
 * being a note and every other write (a caption, a date, a kept phrase, a
 * reading asked for) a change. */
export interface Tally {
  photos: number;
  notes: number;
  changes: number;
}

/** plural says a count with its noun: "1 photo", "2 photos". */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** total is how many a tally counts. */
export function total(t: Tally): number {
  return t.photos + t.notes + t.changes;
}

/** tallyWords names what a tally counts: "2 photos", "1 change",
 * "2 photos, 1 note and 3 changes"; "" when it counts nothing. Every
 * sentence that says what waits in the outbox names it with this. */
export function tallyWords(t: Tally): string {
  const parts = [
    t.photos ? plural(t.photos, 'photo', 'photos') : '',
    t.notes ? plural(t.notes, 'note', 'notes') : '',
    t.changes ? plural(t.changes, 'change', 'changes') : '',
  ].filter(Boolean);
  const last = parts.pop() ?? '';
  return parts.length ? `${parts.join(', ')} and ${last}` : last;
}

/** OutboxLine is what the window says of the outbox outside the Outbox
 * screen: the offline banner's sentence, the status bar's waiting item,
 * and its "needs you" item ("" when nothing is parked). */
export interface OutboxLine {
  banner: string;
  waiting: string;
  parked: string;
}

/** outboxLine words what waits (not parked) and what is parked (waits
 * for Dad), from the Status's counts. */
export function outboxLine(waiting: Tally, parked: Tally): OutboxLine {
  const n = total(waiting);
  const p = total(parked);
  return {
    banner: n
      ? `${tallyWords(waiting)} ${n === 1 ? 'is' : 'are'} waiting safely on this computer and will be sent on ${n === 1 ? 'its' : 'their'} own when it is back.`
      : 'Anything you add waits safely on this computer and is sent on its own when it is back.',
    waiting: n ? `${tallyWords(waiting)} waiting to be sent` : 'Everything sent',
    parked: p ? `${tallyWords(parked)} ${p === 1 ? 'needs' : 'need'} you` : '',
  };
}

/** soon says when a time to come is, roughly ("in about 2 minutes"). */
export function soon(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.round((t - now) / 1000);
  if (s < 10) return 'in a moment';
  if (s < 60) return 'in less than a minute';
  const m = Math.round(s / 60);
  if (m < 60) return m === 1 ? 'in about a minute' : `in about ${m} minutes`;
  const h = Math.round(m / 60);
  return h === 1 ? 'in about an hour' : `in about ${h} hours`;
}

/** firstLines shortens a reading to about n characters, at a word. */
export function firstLines(text: string, n = 180): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= n) return t;
  const cut = t.slice(0, n);
  const sp = cut.lastIndexOf(' ');
  return `${(sp > n * 0.6 ? cut.slice(0, sp) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

const wordChar = /[\p{L}\p{N}'’_-]/u;

/** wordRange widens [start, end) of text to whole words: a selection that
 * begins or ends inside a word takes the whole word, and spaces and
 * punctuation at its edges are dropped. An empty range is [n, n]. */
export function wordRange(text: string, start: number, end: number): [number, number] {
  let s = Math.max(0, Math.min(start, end));
  let e = Math.min(text.length, Math.max(start, end));
  const w = (i: number) => wordChar.test(text[i] ?? '');
  while (s < e && !w(s)) s++;
  while (e > s && !w(e - 1)) e--;
  if (s >= e) return [s, s];
  while (s > 0 && w(s - 1)) s--;
  while (e < text.length && w(e)) e++;
  // A word's own hyphens and apostrophes stay; at the edges they go.
  while (s < e && /['’_-]/.test(text[s] ?? '')) s++;
  while (e > s && /['’_-]/.test(text[e - 1] ?? '')) e--;
  return [s, e];
}
