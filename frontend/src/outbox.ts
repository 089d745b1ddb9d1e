import { backend, type Entry } from './backend';
import { toastError, errorBlock } from './feedback';
import { h, clear, toast, clock, bytes, confirmDialog, plural } from './dom';
import type { Screen } from './screen';

type Go = (t: 'settings') => void;

/**
 * OutboxScreen shows every capture on its way: its four steps, bytes sent,
 * why it waits and when it tries next; parked entries with the engine's
 * message, Retry, Save original… and Discard.
 */
export class OutboxScreen implements Screen {
  readonly el: HTMLElement;
  private list = h('ul', { class: 'entries', 'data-testid': 'entries' });
  private summary = h('p', { class: 'muted', 'data-testid': 'outbox-summary' });
  private retryAll = h('button', { type: 'button', hidden: true, 'data-testid': 'retry-all', onclick: () => void this.doRetryAll() }, 'Retry all');
  private timer = 0;

  constructor(private readonly go: Go) {
    this.el = h(
      'section',
      { class: 'screen outbox', 'aria-label': 'Outbox' },
      h('div', { class: 'row between' }, h('h1', {}, 'Outbox'), h('div', { class: 'row' }, h('button', { type: 'button', onclick: () => void this.sendNow() }, 'Send now'), this.retryAll)),
      this.summary,
      this.list,
    );
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
    try {
      es = await backend.outbox.entries();
    } catch (e) {
      clear(this.list, h('li', { class: 'empty' }, errorBlock(e)));
      return;
    }
    const parked = es.filter((e) => e.state === 'parked').length;
    this.retryAll.hidden = parked === 0;
    this.summary.textContent =
      es.length === 0
        ? 'Everything is sent. Nothing is waiting.'
        : [es.length > parked ? `${plural(es.length - parked, 'capture is', 'captures are')} on the way.` : '', parked ? `${plural(parked, 'capture needs', 'captures need')} you.` : '']
            .filter(Boolean)
            .join(' ');
    clear(this.list, ...es.map((e) => this.item(e)));
  }

  private item(e: Entry): HTMLElement {
    const steps = h(
      'ol',
      { class: 'steps', 'aria-label': 'Steps' },
      ...e.steps.map((s, i) => {
        const current = !s.done && e.steps.slice(0, i).every((p) => p.done);
        const state = s.done ? 'done' : current ? (e.state === 'parked' ? 'parked' : 'waiting') : 'todo';
        return h('li', { class: `step ${state}`, 'data-step': s.name, 'data-state': state }, h('span', { 'aria-hidden': 'true' }, s.done ? '✓' : current ? (e.state === 'parked' ? '!' : '…') : '○'), ` ${s.label}`);
      }),
    );
    const uploading = e.state === 'pending' && !e.reason && e.bytesSent > 0 && e.bytesSent < e.bytesTotal;
    let why: HTMLElement | null = null;
    if (e.state === 'parked') {
      why = h('p', { class: 'error-text', 'data-testid': 'parked-message' }, `The engine refused it: ${e.message || e.code}`);
    } else if (e.refused) {
      why = h('p', { class: 'error-text' }, 'The engine refused Spark’s token, so this waits. ', h('button', { type: 'button', class: 'link', onclick: () => this.go('settings') }, 'Check the token in Settings'));
    } else if (e.reason) {
      why = h('p', { class: 'muted' }, `${e.reason}${e.nextTry ? ` Next try at ${clock(e.nextTry)}.` : ''}`);
    }
    const actions =
      e.state === 'parked'
        ? h(
            'div',
            { class: 'row' },
            h('button', { type: 'button', class: 'primary', 'data-testid': 'retry', onclick: () => void this.retry(e) }, 'Retry'),
            h('button', { type: 'button', onclick: () => void this.save(e) }, 'Save original…'),
            h('button', { type: 'button', class: 'danger', onclick: () => void this.discard(e) }, 'Discard…'),
          )
        : null;
    return h(
      'li',
      { class: `entry ${e.state}`, 'data-entry': e.id, 'data-state': e.state, 'data-testid': 'entry' },
      h('div', { class: 'entry-thumb' }, h('img', { src: e.thumb, alt: '', loading: 'lazy', width: 72, height: 72 })),
      h(
        'div',
        { class: 'entry-main' },
        h('p', { class: 'name' }, e.name, h('span', { class: 'muted' }, ` · ${bytes(e.bytesTotal)}`)),
        steps,
        uploading ? h('div', { class: 'row' }, h('progress', { max: e.bytesTotal, value: e.bytesSent }), h('span', { class: 'muted' }, `${bytes(e.bytesSent)} of ${bytes(e.bytesTotal)}`)) : null,
        why,
        actions,
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
      if (err instanceof Error && 'code' in err && err.code === 'canceled') return;
      toastError(err);
    }
  }

  private async discard(e: Entry): Promise<void> {
    const ok = await confirmDialog(`Discard ${e.name}?`, 'It leaves the outbox for good and is never sent. To keep the photo, use “Save original…” first.', 'Discard');
    if (!ok) return;
    try {
      await backend.outbox.discard(e.id);
      toast(`${e.name} discarded.`);
      this.soon();
    } catch (err) {
      toastError(err);
    }
  }
}
