import { backend, canceled, tile, type Entry, type OutboxStatus, type Write } from './backend';
import { toastError, errorBlock } from './feedback';
import { h, clear, toast, confirmDialog, choiceDialog, detailsOf } from './dom';
import { outboxWords as W, stepWord, nowWord, removeWriteWords, sendingAgainWords, sendingAllWords, savedAsWords, removeEntryTitle, entryRemovedWords, total, outboxSummary, parkedAdvice, waitWords, removeRefused, removedWords, sentWords, sizeWords, soon, waitingWords, writeWhat, writeRefused, writeTurnedDown, writeMain, dialogWords } from './words';
import type { Screen } from './screen';
import { waitsFor } from './codes';
import { place } from './place';

// The outbox's one status. Everything the window says of the outbox (the
// status bar's items and badge, the offline banner, the Outbox screen's
// summary and lists) is drawn from the latest app.OutboxStatus, one Go
// call over one read of the one queue, and every listener is called with
// the same value in the same turn: no two of them can disagree.
type StatusListener = (s: OutboxStatus) => void;
const statusListeners = new Set<StatusListener>();
let latest: OutboxStatus | null = null;
let asked = 0;
let shown = 0;
let statusTimer = 0;
let listening = false;

/** outboxStatus is the latest status read, null before the first. */
export function outboxStatus(): OutboxStatus | null {
  return latest;
}

/** sendingNews says something is being sent, in a toast that goes as soon
 * as its news is old: once nothing waits (the Outbox says everything is
 * sent), even while the pointer rests on it. */
function sendingNews(message: string): void {
  const t = toast(message);
  let stop: (() => void) | null = null;
  let over = false;
  const check = (s: OutboxStatus) => {
    if (over) return;
    if (t.shown() && total(s.waiting) + total(s.parked) > 0) return;
    over = true;
    t.end();
    stop?.();
  };
  stop = onOutboxStatus(check);
  if (over) stop();
}

/** onOutboxStatus calls fn with every new status (at once with the latest,
 * if any); it returns the function that stops it. */
export function onOutboxStatus(fn: StatusListener): () => void {
  statusListeners.add(fn);
  if (!listening) {
    listening = true;
    // What changes the outbox: its events, a write's, an engine switch.
    backend.onOutbox((e) => {
      if (e.kind !== 'progress') refreshOutboxSoon();
    });
    backend.onWrite(() => refreshOutboxSoon());
    backend.onEngine(() => refreshOutboxSoon());
    void refreshOutbox();
  }
  if (latest) fn(latest);
  return () => statusListeners.delete(fn);
}

// Whether the engine answered the status bar's last check (main.ts), null
// before the first: what waits for the family engine is worded from it
// (waitsNow), so the Outbox never says "when the family engine is back"
// beside a bar that says it answers, nor "sending it now" beside one that
// says it can't be reached.
let answers: boolean | null = null;

/** engineAnswers is told by the status bar, each time it checks, whether
 * the engine answers; when that changes, everything drawn from the
 * outbox's status is drawn again, in the same turn as the bar. */
export function engineAnswers(ok: boolean): void {
  if (ok === answers) return;
  answers = ok;
  if (latest) for (const fn of statusListeners) fn(latest);
}

/** waitsNow is what a write waiting for the family engine waits for as
 * the bar last found the engine: being sent while it answers, the engine
 * to be back while it does not. Other codes are as they are. */
export function waitsNow(code: string): string {
  if (answers === null || (code !== waitsFor.family && code !== waitsFor.sending)) return code;
  return answers ? waitsFor.sending : waitsFor.family;
}

/** refreshOutbox reads the status and shows it everywhere; an answer older
 * than one already shown is dropped. It resolves to the error when the
 * status could not be read (Spark not started yet). */
export async function refreshOutbox(): Promise<unknown> {
  const n = ++asked;
  let s: OutboxStatus;
  try {
    s = await backend.outbox.status();
  } catch (e) {
    return e;
  }
  if (n < shown) return undefined;
  shown = n;
  latest = s;
  for (const fn of statusListeners) fn(s);
  return undefined;
}

/** refreshOutboxSoon refreshes the status shortly, a burst of events once. */
export function refreshOutboxSoon(): void {
  clearTimeout(statusTimer);
  statusTimer = window.setTimeout(() => void refreshOutbox(), 100);
}

type Go = (t: 'settings') => void;

/**
 * OutboxScreen shows every capture on its way: its four steps, bytes sent,
 * why it waits and when it tries next; parked entries with the engine's
 * message behind Details, Send again, Save the original… and Remove.
 */
export class OutboxScreen implements Screen {
  readonly el: HTMLElement;
  private list = h('ul', { class: 'entries', 'data-testid': 'entries' });
  private writesHead = h('h2', { hidden: true }, W.writes);
  private writes = h('ul', { class: 'entries writes', 'data-testid': 'writes' });
  private summary = h('p', { class: 'muted', 'data-testid': 'outbox-summary' });
  /** sendNow is there only while something waits to be sent: with
   * nothing waiting it would offer to send nothing (issue 36). */
  private sendNowBtn = h('button', { type: 'button', hidden: true, 'data-testid': 'send-now', onclick: () => void this.sendNow() }, W.sendNow);
  private retryAll = h('button', { type: 'button', hidden: true, 'data-testid': 'retry-all', onclick: () => void this.doRetryAll() }, W.sendAllAgain);
  constructor(private readonly go: Go) {
    this.el = h(
      'section',
      { class: 'screen outbox', 'aria-label': W.title },
      h('div', { class: 'row between' }, h('h1', {}, W.title), h('div', { class: 'row' }, this.sendNowBtn, this.retryAll)),
      this.summary,
      this.list,
      this.writesHead,
      this.writes,
    );
    onOutboxStatus((s) => {
      if (!this.el.hidden) this.render(s);
    });
    backend.onOutbox((e) => {
      if (this.el.hidden || e.kind !== 'progress') return;
      const item = this.list.querySelector(`[data-entry="${CSS.escape(e.entry_id)}"]`);
      const bar = item?.querySelector('progress');
      if (!bar) return;
      bar.value = e.bytes_sent;
      const words = item?.querySelector('[data-testid=sent]');
      if (words) words.textContent = sentWords(e.bytes_sent, bar.max);
    });
  }

  show(): void {
    const s = outboxStatus();
    if (s) this.render(s);
    void this.load();
  }

  private soon(): void {
    refreshOutboxSoon();
  }

  private async load(): Promise<void> {
    const err = await refreshOutbox();
    if (err !== undefined) clear(this.list, h('li', { class: 'empty' }, errorBlock(err)));
  }

  /** render draws the screen from the one status: its summary is the
   * status bar's and the banner's count, word for word the same tally. */
  private render(s: OutboxStatus): void {
    const keep = keepPlace(this.el);
    this.retryAll.hidden = s.entries.every((e) => e.state !== 'parked') && s.writes.every((w) => w.state !== 'parked');
    this.sendNowBtn.hidden = total(s.waiting) === 0;
    this.summary.textContent = outboxSummary(s.waiting, s.parked, place().engine);
    this.summary.dataset.waiting = String(s.entries.length + s.writes.length);
    clear(this.list, ...s.entries.map((e) => this.item(e)));
    this.writesHead.hidden = s.writes.length === 0;
    clear(this.writes, ...s.writes.map((w) => this.write(w, s.engine)));
    keep();
  }

  /** write is one of Dad's notes or changes on its way: what it is, why it
   * waits, and for one the engine refused, its reason with Send again and
   * Remove. */
  private write(w: Write, engine: string): HTMLElement {
    let why: HTMLElement;
    let actions: HTMLElement | null = null;
    if (w.state === 'parked') {
      // Said for Dad; the engine's own words are behind Details.
      why = h(
        'div',
        { 'data-testid': 'write-problem' },
        h('p', { class: 'error-text' }, writeRefused(w.code, engine, w.kind, w.owner)),
        w.detail ? detailsOf(w.detail) : null,
      );
      actions = h(
        'div',
        { class: 'row' },
        h('button', { type: 'button', class: writeMain(w.code) === 'retry' ? 'primary' : '', 'data-testid': 'retry-write', onclick: () => void this.retryWrite(w) }, W.sendAgain),
        h('button', { type: 'button', class: writeMain(w.code) === 'remove' ? 'primary' : 'danger', 'data-testid': 'discard-write', onclick: () => void this.discardWrite(w) }, W.removeFromList),
      );
    } else {
      // What it waits for, in the words the moment and the toasts say.
      // Turned down as another family member's: whose, not "when the
      // engine is back".
      why = h('p', { class: 'muted', 'data-testid': 'write-waiting' }, w.owner ? writeTurnedDown(w.kind, w.owner) : waitingWords(waitsNow(w.waits_for)));
    }
    return h(
      'li',
      { class: `entry write ${w.state}`, 'data-write': w.id, 'data-kind': w.kind, 'data-state': w.state, 'data-testid': 'write' },
      h('div', { class: 'entry-main' }, h('p', { class: 'name' }, writeWhat(w)), why, actions),
    );
  }

  private async retryWrite(w: Write): Promise<void> {
    try {
      await backend.outbox.retry(w.id);
      sendingNews(W.sendingItAgain);
      this.soon();
    } catch (err) {
      toastError(err);
    }
  }

  private async discardWrite(w: Write): Promise<void> {
    const ok = await confirmDialog(W.removeWriteTitle, removeWriteWords(writeWhat(w)), W.remove);
    if (!ok) return;
    try {
      await backend.outbox.discard(w.id);
      toast(W.removed);
      this.soon();
    } catch (err) {
      toastError(err);
    }
  }

  private item(e: Entry): HTMLElement {
    const steps = h(
      'ol',
      { class: 'steps', 'aria-label': W.steps },
      ...e.steps.map((s, i) => {
        const current = !s.done && e.steps.slice(0, i).every((p) => p.done);
        const state = s.done ? 'done' : current ? (e.state === 'parked' ? 'parked' : 'waiting') : 'todo';
        return h('li', { class: `step ${state}`, 'data-step': s.name, 'data-state': state }, h('span', { 'aria-hidden': 'true' }, s.done ? '✓' : current ? (e.state === 'parked' ? '!' : '…') : '○'), ` ${stepWord(s.name)}`);
      }),
    );
    // The bytes the engine holds of the file on its way: the original's
    // from the outbox, either file's from the last progress event.
    const sent = Math.max(e.bytes_sent, e.original_sent);
    const uploading = e.state === 'pending' && !e.wait && sent > 0 && sent < e.bytes_total;
    const next = e.steps.find((s) => !s.done)?.name ?? '';
    let why: HTMLElement | null = null;
    let actions: HTMLElement | null = null;
    if (e.state === 'parked') {
      const advice = parkedAdvice(e.code);
      why = h(
        'div',
        { 'data-testid': 'parked-message' },
        h('p', { class: 'error-text' }, advice.sentence),
        detailsOf(`${e.detail || e.code}${e.code ? ` (${e.code})` : ''}`),
      );
      const save = h('button', { type: 'button', class: advice.main === 'save' ? 'primary' : '', 'data-testid': 'save-original', onclick: () => void this.save(e) }, W.saveOriginal);
      const again = h('button', { type: 'button', class: advice.main === 'retry' ? 'primary' : '', 'data-testid': 'retry', onclick: () => void this.retry(e) }, W.sendAgain);
      actions = h(
        'div',
        { class: 'row' },
        ...(advice.main === 'save' ? [save, again] : [again, save]),
        h('button', { type: 'button', class: 'danger', onclick: () => void this.discard(e) }, W.removeFromList),
      );
    } else if (e.wait === 'refused') {
      why = h('p', { class: 'error-text' }, `${waitWords(e.wait, '')} `, h('button', { type: 'button', class: 'link', onclick: () => this.go('settings') }, W.checkSettings));
    } else if (e.wait) {
      why = h('div', {}, h('p', { class: 'muted' }, waitWords(e.wait, e.next_try ? soon(e.next_try) : '')), e.detail ? detailsOf(e.detail) : null);
    }
    return h(
      'li',
      { class: `entry ${e.state}`, 'data-entry': e.id, 'data-state': e.state, 'data-testid': 'entry' },
      h('div', { class: 'entry-thumb' }, h('img', { src: tile(e.thumb), alt: '', loading: 'lazy', width: 72, height: 72 })),
      h(
        'div',
        { class: 'entry-main' },
        h('p', { class: 'name' }, e.name, h('span', { class: 'muted' }, ` · ${sizeWords(e.bytes_total)}`)),
        e.state === 'parked' || e.wait ? null : h('p', { class: 'entry-now' }, nowWord(next)),
        uploading ? h('div', { class: 'row' }, h('progress', { max: e.bytes_total, value: sent }), h('span', { class: 'muted', 'data-testid': 'sent' }, sentWords(sent, e.bytes_total))) : null,
        why,
        actions,
        h('details', { class: 'details' }, h('summary', {}, W.steps), steps),
      ),
    );
  }

  private async retry(e: Entry): Promise<void> {
    try {
      await backend.outbox.retry(e.id);
      sendingNews(sendingAgainWords(e.name));
      this.soon();
    } catch (err) {
      toastError(err);
    }
  }

  private async doRetryAll(): Promise<void> {
    try {
      const n = await backend.outbox.retryAll();
      sendingNews(sendingAllWords(n));
      this.soon();
    } catch (err) {
      toastError(err);
    }
  }

  private async sendNow(): Promise<void> {
    try {
      await backend.outbox.sendNow();
      sendingNews(W.tryingNow);
    } catch (err) {
      toastError(err);
    }
  }

  private async save(e: Entry): Promise<void> {
    try {
      const p = await backend.outbox.saveOriginal(e.id, dialogWords.saveOriginal);
      toast(savedAsWords(p));
    } catch (err) {
      if (canceled(err)) return;
      toastError(err);
    }
  }

  private async discard(e: Entry): Promise<void> {
    // Its moment reached the engine (its full photo refused, say): the
    // two true choices, keep the moment without it or delete it too.
    if (e.moment_id && e.steps.find((s) => s.name === 'create')?.done) {
      const w = removeRefused(e.name);
      const choice = await choiceDialog(w.title, w.body, [
        { label: w.keep, value: 'keep', testid: 'keep-without' },
        { label: w.del, value: 'delete', danger: true, testid: 'delete-too' },
      ]);
      if (!choice) return;
      try {
        await backend.outbox.discard(e.id);
        // Through the outbox: sent now, or when the engine is back.
        if (choice === 'delete') await backend.moments.remove(e.moment_id);
        toast(removedWords(e.name, choice === 'delete'));
        this.soon();
      } catch (err) {
        toastError(err);
      }
      return;
    }
    const ok = await confirmDialog(removeEntryTitle(e.name), W.removeEntryBody, W.remove);
    if (!ok) return;
    try {
      await backend.outbox.discard(e.id);
      toast(entryRemovedWords(e.name));
      this.soon();
    } catch (err) {
      toastError(err);
    }
  }
}

/** An item of the Outbox's lists: a photo (data-entry) or a change
 * (data-write). */
const itemSel = '[data-entry], [data-write]';
const controlSel = 'button, summary, a, input';

function itemKey(li: Element): string {
  const d = (li as HTMLElement).dataset;
  return d.entry !== undefined ? `[data-entry="${CSS.escape(d.entry)}"]` : `[data-write="${CSS.escape(d.write ?? '')}"]`;
}

/** keepPlace notes what Dad has done to root's lists that drawing them
 * again must not undo, the Details he opened and the control the
 * keyboard is on, each by its item's id and its place in the item, and
 * returns what puts them back once they are drawn again. */
function keepPlace(root: HTMLElement): () => void {
  const open: [string, number][] = [];
  for (const li of root.querySelectorAll(itemSel)) {
    li.querySelectorAll('details').forEach((d, i) => {
      if (d.open) open.push([itemKey(li), i]);
    });
  }
  let focus: [string, number] | null = null;
  const active = document.activeElement;
  const li = active && root.contains(active) ? active.closest(itemSel) : null;
  if (active && li) focus = [itemKey(li), [...li.querySelectorAll(controlSel)].indexOf(active)];
  return () => {
    for (const [key, i] of open) {
      const d = root.querySelector(key)?.querySelectorAll('details')[i];
      if (d) d.open = true;
    }
    if (focus) {
      const el = root.querySelector(focus[0])?.querySelectorAll<HTMLElement>(controlSel)[focus[1]];
      el?.focus();
    }
  };
}
