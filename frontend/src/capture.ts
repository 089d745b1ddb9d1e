import { backend, errorText, BackendError, type CaptureEvent, type CaptureResult, type OutboxEvent } from './backend';
import { h, clear, toast, plural } from './dom';
import { ulid } from './ulid';
import type { Screen } from './screen';

type Go = (t: 'outbox' | 'moments' | 'settings') => void;

interface Card {
  name: string;
  el: HTMLElement;
  state: HTMLElement;
  thumb: HTMLElement;
  steps: number;
}

const stepWords: Record<string, string> = {
  create: 'Engine told',
  copy: 'Small copy sent',
  turn: 'Pippa asked',
  original: 'Original sent',
};

/** CaptureScreen adds photos: drop, choose, import a folder, paste; and notes. */
export class CaptureScreen implements Screen {
  readonly el: HTMLElement;
  private cards = h('ul', { class: 'cards', 'aria-label': 'Photos added', 'data-testid': 'cards' });
  private byEntry = new Map<string, Card>();
  private pending = new Map<string, Card[]>(); // batch -> placeholder cards
  private bar = h('div', { class: 'batch', hidden: true, 'data-testid': 'batch' });
  private note = h('textarea', { id: 'note', rows: 3, placeholder: 'A few words about today…' });

  constructor(private readonly go: Go) {
    const drop = h(
      'section',
      { class: 'dropzone', 'aria-label': 'Drop photos here', 'data-testid': 'dropzone' },
      h('div', { class: 'drop-icon', 'aria-hidden': 'true' }, '✦'),
      h('h1', {}, 'Add photos'),
      h('p', {}, 'Drag photos from your computer onto this window, or:'),
      h(
        'div',
        { class: 'row center' },
        h('button', { type: 'button', class: 'primary', onclick: () => void this.run((b) => backend.capture.choosePhotos(b)) }, 'Choose photos…'),
        h('button', { type: 'button', onclick: () => void this.run((b) => backend.capture.importFolder(b)) }, 'Import a folder…'),
      ),
      h('p', { class: 'muted' }, 'You can also paste a picture here with Ctrl+V (⌘V on a Mac). Photos are safe on this computer the moment they appear below.'),
    );
    drop.style.setProperty('--wails-drop-target', 'drop');
    const noteForm = h(
      'form',
      { class: 'note', onsubmit: (e: Event) => { e.preventDefault(); void this.addNote(); } },
      h('label', { for: 'note' }, 'Or write a note'),
      this.note,
      h('div', { class: 'row end' }, h('button', { type: 'submit' }, 'Keep this note')),
    );
    this.el = h('section', { class: 'screen capture', 'aria-label': 'Add photos' }, drop, this.bar, this.cards, noteForm);

    backend.onFileDrop((paths) => void this.run((b) => backend.capture.files(b, paths)));
    backend.onCapture((e) => this.onCapture(e));
    backend.onOutbox((e) => this.onOutbox(e));
    document.addEventListener('paste', (e) => void this.paste(e));
  }

  show(): void {}

  /** run starts a batch and reports errors; cards come from the events. */
  private async run(start: (batch: string) => Promise<CaptureResult[]>): Promise<void> {
    const batch = ulid();
    try {
      const results = await start(batch);
      const failed = results.filter((r) => r.error).length;
      const dup = results.filter((r) => r.duplicate).length;
      if (failed > 0) toast(`${plural(failed, 'photo', 'photos')} could not be added; the card says why.`, 'error');
      else if (dup > 0) toast(`${plural(dup, 'photo was', 'photos were')} already in Spark, so ${dup === 1 ? 'it was' : 'they were'} not added twice.`);
    } catch (e) {
      if (e instanceof BackendError && e.code === 'canceled') return;
      toast(errorText(e), 'error');
    }
  }

  private onCapture(e: CaptureEvent): void {
    if (e.kind === 'start') {
      const placeholders = (e.names ?? []).map((n) => this.addCard(n));
      this.pending.set(e.batch, placeholders);
      this.bar.hidden = e.total < 2;
    } else if (e.kind === 'result' && e.result) {
      // Results come in the order they finish: fill the placeholder of the
      // same file.
      const slots = this.pending.get(e.batch) ?? [];
      const at = slots.findIndex((c) => c.name === e.result?.name);
      const slot = at >= 0 ? slots.splice(at, 1)[0] : slots.shift();
      this.fill(slot ?? this.addCard(e.result.name), e.result);
    } else if (e.kind === 'done') {
      for (const c of this.pending.get(e.batch) ?? []) c.el.remove();
      this.pending.delete(e.batch);
      window.setTimeout(() => (this.bar.hidden = true), 1500);
    }
    if (e.total > 1) {
      const label = e.kind === 'done' ? `Added ${e.total} of ${e.total}` : `Adding ${e.done} of ${e.total}…`;
      clear(this.bar, h('label', { for: 'batch-progress' }, label), h('progress', { id: 'batch-progress', max: e.total, value: e.done }));
    }
    document.dispatchEvent(new Event('spark:status'));
  }

  private addCard(name: string): Card {
    const thumb = h('div', { class: 'thumb loading', 'aria-hidden': 'true' });
    const state = h('p', { class: 'state' }, 'Saving on this computer…');
    const el = h('li', { class: 'card', 'data-testid': 'card' }, thumb, h('p', { class: 'name', title: name }, name), state);
    this.cards.prepend(el);
    return { name, el, state, thumb, steps: 0 };
  }

  private fill(c: Card, r: CaptureResult): void {
    if (r.error) {
      c.el.classList.add('failed');
      clear(c.thumb, h('span', { class: 'big' }, '!'));
      c.thumb.classList.remove('loading');
      c.state.textContent = r.error.message;
      c.el.dataset.state = 'failed';
      return;
    }
    if (r.duplicate) {
      c.el.dataset.state = 'duplicate';
      c.thumb.classList.remove('loading');
      c.state.textContent = 'Already in Spark: not added twice.';
      return;
    }
    clear(c.thumb, h('img', { src: r.thumb, alt: '', loading: 'lazy', decoding: 'async' }));
    c.thumb.classList.remove('loading');
    c.el.dataset.state = 'sending';
    c.el.dataset.entry = r.entryID;
    c.state.textContent = 'Safe on this computer · sending…';
    this.byEntry.set(r.entryID, c);
  }

  private onOutbox(e: OutboxEvent): void {
    const c = this.byEntry.get(e.entryID);
    if (!c) return;
    switch (e.kind) {
      case 'step_done':
        c.steps++;
        c.state.textContent = `Safe · ${stepWords[e.step] ?? e.step} (${c.steps} of 4)`;
        break;
      case 'progress':
        break;
      case 'waiting':
        c.el.dataset.state = 'waiting';
        c.state.textContent = 'Safe on this computer · waiting for the engine';
        break;
      case 'parked':
        c.el.dataset.state = 'parked';
        clear(c.state, 'The engine refused it. ', h('button', { type: 'button', class: 'link', onclick: () => this.go('outbox') }, 'See the Outbox'));
        break;
      case 'done':
        c.el.dataset.state = 'sent';
        c.state.textContent = 'Sent ✓';
        break;
      case 'retried':
        c.el.dataset.state = 'sending';
        c.state.textContent = 'Safe on this computer · sending…';
        break;
    }
  }

  private async paste(e: ClipboardEvent): Promise<void> {
    if (this.el.hidden) return;
    const target = e.target as HTMLElement | null;
    if (target && (target.tagName === 'TEXTAREA' || target.tagName === 'INPUT')) return;
    const item = Array.from(e.clipboardData?.items ?? []).find((i) => i.kind === 'file' && i.type.startsWith('image/'));
    const file = item?.getAsFile();
    if (!item || !file) return;
    e.preventDefault();
    const data = await new Promise<string>((resolve, reject) => {
      const r = new FileReader();
      r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ''));
      r.onerror = () => reject(new Error('The pasted picture could not be read.'));
      r.readAsDataURL(file);
    });
    await this.run((b) => backend.capture.paste(b, item.type, data));
  }

  private async addNote(): Promise<void> {
    const text = this.note.value.trim();
    if (!text) {
      toast('Write something first.');
      this.note.focus();
      return;
    }
    try {
      await backend.moments.addNote(ulid(), text);
      this.note.value = '';
      toast('Note kept. It is in Moments.');
    } catch (e) {
      toast(errorText(e), 'error');
    }
  }
}
