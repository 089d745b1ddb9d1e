import { backend, canceled, type Entry, type Write } from './backend';
import { toastError, errorBlock } from './feedback';
import { h, clear, toast, bytes, confirmDialog, detailsOf } from './dom';
import { parkedAdvice, plural, soon, tallyWords, total, type Tally } from './words';
import type { Screen } from './screen';

type Go = (t: 'settings') => void;

/** stepWords names an entry's steps (outbox/entry.go) for a person. */
const stepWords: Record<string, string> = {
  create: 'Moment made',
  copy: 'Small copy sent',
  turn: 'Pippa asked to read it',
  original: 'Full photo sent',
};

/** nowWords says what happens next, by the first step not done. */
const nowWords: Record<string, string> = {
  create: 'Waiting to be sent.',
  copy: 'Sending a small copy…',
  turn: 'Asking Pippa to read it…',
  original: 'Sending the full photo…',
};

/**
 * OutboxScreen shows every capture on its way: its four steps, bytes sent,
 * why it waits and when it tries next; parked entries with the engine's
 * message behind Details, Send again, Save the original… and Remove.
 */
export class OutboxScreen implements Screen {
  readonly el: HTMLElement;
  private list = h('ul', { class: 'entries', 'data-testid': 'entries' });
  private writesHead = h('h2', { hidden: true }, 'Notes and changes');
  private writes = h('ul', { class: 'entries writes', 'data-testid': 'writes' });
  private summary = h('p', { class: 'muted', 'data-testid': 'outbox-summary' });
  private retryAll = h('button', { type: 'button', hidden: true, 'data-testid': 'retry-all', onclick: () => void this.doRetryAll() }, 'Send all again');
  private timer = 0;

  constructor(private readonly go: Go) {
    this.el = h(
      'section',
      { class: 'screen outbox', 'aria-label': 'Outbox' },
      h('div', { class: 'row between' }, h('h1', {}, 'Outbox'), h('div', { class: 'row' }, h('button', { type: 'button', onclick: () => void this.sendNow() }, 'Send now'), this.retryAll)),
      this.summary,
      this.list,
      this.writesHead,
      this.writes,
    );
    backend.onWrite(() => {
      if (!this.el.hidden) this.soon();
    });
    backend.onOutbox((e) => {
      if (this.el.hidden) return;
      if (e.kind === 'progress') {
        const bar = this.list.querySelector<HTMLProgressElement>(`[data-entry="${CSS.escape(e.entryID)}"] progress`);
        if (bar) bar.value = e.bytesSent;
        return;
      }
      this.soon();
    });
  }

  show(): void {
    void this.load();
  }

  private soon(): void {
    clearTimeout(this.timer);
    this.timer = window.setTimeout(() => void this.load(), 250);
  }

  private async load(): Promise<void> {
    let es: Entry[];
    let ws: Write[];
    try {
      [es, ws] = await Promise.all([backend.outbox.entries(), backend.outbox.writes()]);
    } catch (e) {
      clear(this.list, h('li', { class: 'empty' }, errorBlock(e)));
      return;
    }
    ws = ws.filter((w) => w.state !== 'sent');
    const parked = es.filter((e) => e.state === 'parked').length;
    this.retryAll.hidden = parked === 0;
    // Named as the status bar names them (words.ts tallyWords).
    const tally = (state: (s: string) => boolean): Tally => ({
      photos: es.filter((e) => state(e.state)).length,
      notes: ws.filter((w) => state(w.state) && w.kind === 'note').length,
      changes: ws.filter((w) => state(w.state) && w.kind !== 'note').length,
    });
    const onWay = tally((s) => s !== 'parked');
    const stuck = tally((s) => s === 'parked');
    this.summary.textContent =
      es.length + ws.length === 0
        ? 'Everything is sent. Nothing is waiting.'
        : [
            total(onWay) ? `${tallyWords(onWay)} ${total(onWay) === 1 ? 'is' : 'are'} on the way, safe on this computer until then.` : '',
            total(stuck) ? `${tallyWords(stuck)} ${total(stuck) === 1 ? 'needs' : 'need'} you to decide what to do.` : '',
          ]
            .filter(Boolean)
            .join(' ');
    clear(this.list, ...es.map((e) => this.item(e)));
    this.writesHead.hidden = ws.length === 0;
    clear(this.writes, ...ws.map((w) => this.write(w)));
  }

  /** write is one of Dad's notes or changes on its way: what it is, why it
   * waits, and for one the engine refused, its reason with Send again and
   * Remove. */
  private write(w: Write): HTMLElement {
    let why: HTMLElement;
    let actions: HTMLElement | null = null;
    if (w.state === 'parked') {
      // Said for Dad; the engine's own words are behind Details.
      why = h(
        'div',
        { 'data-testid': 'write-problem' },
        h('p', { class: 'error-text' }, 'The family engine turned this down, so it was not sent. Send it again once that is sorted out, or remove it.'),
        w.problem ? detailsOf(w.problem) : null,
      );
      actions = h(
        'div',
        { class: 'row' },
        h('button', { type: 'button', class: 'primary', 'data-testid': 'retry-write', onclick: () => void this.retryWrite(w) }, 'Send again'),
        h('button', { type: 'button', class: 'danger', 'data-testid': 'discard-write', onclick: () => void this.discardWrite(w) }, 'Remove from this list…'),
      );
    } else {
      // The Go side's sentence, the same as the moment and the toasts say.
      why = h('p', { class: 'muted', 'data-testid': 'write-waiting' }, w.waiting);
    }
    return h(
      'li',
      { class: `entry write ${w.state}`, 'data-write': w.id, 'data-kind': w.kind, 'data-state': w.state, 'data-testid': 'write' },
      h('div', { class: 'entry-main' }, h('p', { class: 'name' }, w.what), why, actions),
    );
  }

  private async retryWrite(w: Write): Promise<void> {
    try {
      await backend.outbox.retryWrite(w.id);
      toast('Sending it again.');
      this.soon();
    } catch (err) {
      toastError(err);
    }
  }

  private async discardWrite(w: Write): Promise<void> {
    const ok = await confirmDialog('Remove this from the list?', `${w.what}: it is never sent, and Spark forgets it.`, 'Remove');
    if (!ok) return;
    try {
      await backend.outbox.discardWrite(w.id);
      toast('Removed from the list.');
      this.soon();
    } catch (err) {
      toastError(err);
    }
  }

  private item(e: Entry): HTMLElement {
    const steps = h(
      'ol',
      { class: 'steps', 'aria-label': 'Steps' },
      ...e.steps.map((s, i) => {
        const current = !s.done && e.steps.slice(0, i).every((p) => p.done);
        const state = s.done ? 'done' : current ? (e.state === 'parked' ? 'parked' : 'waiting') : 'todo';
        return h('li', { class: `step ${state}`, 'data-step': s.name, 'data-state': state }, h('span', { 'aria-hidden': 'true' }, s.done ? '✓' : current ? (e.state === 'parked' ? '!' : '…') : '○'), ` ${stepWords[s.name] ?? s.name}`);
      }),
    );
    const uploading = e.state === 'pending' && !e.reason && e.bytesSent > 0 && e.bytesSent < e.bytesTotal;
    const next = e.steps.find((s) => !s.done)?.name ?? '';
    let why: HTMLElement | null = null;
    let actions: HTMLElement | null = null;
    if (e.state === 'parked') {
      const advice = parkedAdvice(e.code);
      why = h(
        'div',
        { 'data-testid': 'parked-message' },
        h('p', { class: 'error-text' }, advice.sentence),
        detailsOf(`${e.message || e.code}${e.code ? ` (${e.code})` : ''}`),
      );
      const save = h('button', { type: 'button', class: advice.main === 'save' ? 'primary' : '', 'data-testid': 'save-original', onclick: () => void this.save(e) }, 'Save the original…');
      const again = h('button', { type: 'button', class: advice.main === 'retry' ? 'primary' : '', 'data-testid': 'retry', onclick: () => void this.retry(e) }, 'Send again');
      actions = h(
        'div',
        { class: 'row' },
        ...(advice.main === 'save' ? [save, again] : [again, save]),
        h('button', { type: 'button', class: 'danger', onclick: () => void this.discard(e) }, 'Remove from this list…'),
      );
    } else if (e.refused) {
      why = h('p', { class: 'error-text' }, 'Waiting: the family engine did not accept Spark’s key. ', h('button', { type: 'button', class: 'link', onclick: () => this.go('settings') }, 'Check it in Settings'));
    } else if (e.reason) {
      const when = e.nextTry ? soon(e.nextTry) : '';
      why = h(
        'div',
        {},
        h('p', { class: 'muted' }, `Not sent yet: where your moments are kept can’t be reached right now. Spark tries again on its own${when ? `, ${when}` : ''}.`),
        detailsOf(e.reason),
      );
    }
    return h(
      'li',
      { class: `entry ${e.state}`, 'data-entry': e.id, 'data-state': e.state, 'data-testid': 'entry' },
      h('div', { class: 'entry-thumb' }, h('img', { src: e.thumb, alt: '', loading: 'lazy', width: 72, height: 72 })),
      h(
        'div',
        { class: 'entry-main' },
        h('p', { class: 'name' }, e.name, h('span', { class: 'muted' }, ` · ${bytes(e.bytesTotal)}`)),
        e.state === 'parked' || e.reason || e.refused ? null : h('p', { class: 'entry-now' }, nowWords[next] ?? 'Almost done…'),
        uploading ? h('div', { class: 'row' }, h('progress', { max: e.bytesTotal, value: e.bytesSent }), h('span', { class: 'muted' }, `${bytes(e.bytesSent)} of ${bytes(e.bytesTotal)}`)) : null,
        why,
        actions,
        h('details', { class: 'details' }, h('summary', {}, 'Steps'), steps),
      ),
    );
  }

  private async retry(e: Entry): Promise<void> {
    try {
      await backend.outbox.retry(e.id);
      toast(`Sending ${e.name} again.`);
      this.soon();
    } catch (err) {
      toastError(err);
    }
  }

  private async doRetryAll(): Promise<void> {
    try {
      const n = await backend.outbox.retryAll();
      toast(`Sending ${plural(n, 'capture', 'captures')} again.`);
      this.soon();
    } catch (err) {
      toastError(err);
    }
  }

  private async sendNow(): Promise<void> {
    try {
      await backend.outbox.sendNow();
      toast('Trying to send now.');
    } catch (err) {
      toastError(err);
    }
  }

  private async save(e: Entry): Promise<void> {
    try {
      const p = await backend.outbox.saveOriginal(e.id);
      toast(`Saved as ${p}.`);
    } catch (err) {
      if (canceled(err)) return;
      toastError(err);
    }
  }

  private async discard(e: Entry): Promise<void> {
    const ok = await confirmDialog(`Remove ${e.name} from the list?`, 'It is never sent, and Spark forgets it. To keep the photo, use “Save the original…” first.', 'Remove');
    if (!ok) return;
    try {
      await backend.outbox.discard(e.id);
      toast(`${e.name} removed.`);
      this.soon();
    } catch (err) {
      toastError(err);
    }
  }
}
