import { backend, errorText, type Moment, type Reading } from './backend';
import { h, clear, toast, when, confirmDialog, bytes } from './dom';
import { ulid } from './ulid';

interface Hooks {
  changed(m: Moment): void;
  deleted(id: string): void;
}

const statusWords: Record<string, string> = {
  queued: 'Waiting for Pippa',
  running: 'Pippa is reading…',
  finished: 'Finished',
  failed: 'Failed',
};

const modeWords: Record<string, string> = {
  practical: 'Quick reading',
  careful: 'Careful reading',
  recall: 'Recall',
};

/** Shown in place of an original the webview cannot draw (HEIC). */
const drawable = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif']);

/**
 * MomentDialog opens one moment: its original, its caption (editable),
 * delete, Pippa's readings with their status, a careful reading on
 * request, and "Keep this phrase" for text selected in a reading.
 */
export class MomentDialog {
  private dlg = h('dialog', { class: 'moment-dialog', 'aria-labelledby': 'moment-title', 'data-testid': 'moment-dialog' });
  private body = h('div', { class: 'moment-body' });
  private keepBar = h('div', { class: 'keep-bar', hidden: true });
  private m: Moment | null = null;
  private poll = 0;

  constructor(private readonly hooks: Hooks) {
    this.dlg.append(
      h('div', { class: 'row between' }, h('h2', { id: 'moment-title' }, 'Moment'), h('button', { type: 'button', class: 'close', 'aria-label': 'Close', onclick: () => this.close() }, '✕')),
      this.body,
      this.keepBar,
    );
    this.dlg.addEventListener('close', () => this.stop());
    document.body.append(this.dlg);
    document.addEventListener('selectionchange', () => this.onSelection());
  }

  async open(m: Moment): Promise<void> {
    this.m = m;
    this.render();
    if (!this.dlg.open) this.dlg.showModal();
    await this.reload();
  }

  private close(): void {
    this.dlg.close();
  }

  private stop(): void {
    clearTimeout(this.poll);
    this.m = null;
  }

  private async reload(): Promise<void> {
    const id = this.m?.id;
    if (!id) return;
    try {
      const fresh = await backend.moments.get(id);
      if (this.m?.id !== id) return;
      // Redraw only on a change, so a selection in a reading (for "Keep
      // this phrase") survives the polling while another reading runs.
      if (JSON.stringify(fresh) !== JSON.stringify(this.m)) {
        this.m = fresh;
        this.hooks.changed(fresh);
        this.render();
      }
    } catch (e) {
      toast(errorText(e), 'error');
    }
    clearTimeout(this.poll);
    const busy = this.m?.pending || this.m?.readings.some((r) => r.status === 'queued' || r.status === 'running');
    if (busy && this.dlg.open) this.poll = window.setTimeout(() => void this.reload(), 1500);
  }

  private render(): void {
    const m = this.m;
    if (!m) return;
    const orig = m.original;
    const showOriginal = orig && drawable.has(orig.contentType);
    const src = showOriginal ? orig.url : m.thumb;
    const picture = src
      ? h('figure', { class: 'picture' },
          h('img', { src, alt: m.caption || m.name || 'Photo', 'data-testid': 'moment-image' }),
          h('figcaption', { class: 'muted' },
            orig ? `Original: ${orig.contentType.replace('image/', '').toUpperCase()}, ${bytes(orig.size)}${showOriginal ? '' : ' (shown as its small copy)'}` :
            m.pending ? 'Still on this computer; it will be sent on its own.' : 'The original is on its way.'))
      : null;
    const caption = h('textarea', { id: 'caption', rows: 2, placeholder: 'Add a caption…', 'data-testid': 'caption' });
    caption.value = m.caption;
    const save = h('button', { type: 'button', onclick: () => void this.saveCaption(caption.value) }, 'Save caption');
    const readings = m.readings.length
      ? h('ol', { class: 'readings', 'data-testid': 'readings' }, ...m.readings.map((r) => this.reading(r)))
      : h('p', { class: 'muted', 'data-testid': 'readings' }, m.pending ? 'Pippa will read it once it is sent.' : 'No readings yet.');
    clear(
      this.body,
      picture,
      h('p', { class: 'muted' }, `${m.kind === 'note' ? 'Note' : 'Photo'} · ${when(m.takenAt || m.createdAt)}${m.name ? ` · ${m.name}` : ''}`),
      m.pending
        ? h('p', { class: 'pill waiting' }, 'Not sent yet: you can edit it once it reaches the engine.')
        : h('div', { class: 'caption-edit' }, h('label', { for: 'caption' }, 'Caption'), caption, h('div', { class: 'row' }, save)),
      h('h3', {}, 'Pippa’s readings'),
      readings,
      m.pending
        ? null
        : h(
            'div',
            { class: 'row between actions' },
            h('button', { type: 'button', class: 'primary', onclick: () => void this.careful() }, 'Ask for a careful reading'),
            h('button', { type: 'button', class: 'danger', onclick: () => void this.remove() }, 'Delete moment…'),
          ),
    );
  }

  private reading(r: Reading): HTMLElement {
    return h(
      'li',
      { class: `reading ${r.status}`, 'data-testid': 'reading', 'data-status': r.status },
      h('div', { class: 'row between' },
        h('strong', {}, modeWords[r.mode] ?? r.mode),
        h('span', { class: `pill status-${r.status}` }, statusWords[r.status] ?? r.status)),
      r.text ? h('p', { class: 'reading-text', 'data-testid': 'reading-text' }, r.text) : null,
      r.error ? h('p', { class: 'error-text' }, r.error) : null,
    );
  }

  /** onSelection offers "Keep this phrase" for text selected in a reading. */
  private onSelection(): void {
    if (!this.dlg.open || !this.m) return;
    const sel = document.getSelection();
    const text = sel?.toString().trim() ?? '';
    const node = sel?.anchorNode ?? null;
    const inReading = node !== null && (node instanceof Element ? node : node.parentElement)?.closest('.reading-text') !== null;
    if (!text || !inReading || !this.dlg.contains(node)) {
      this.keepBar.hidden = true;
      return;
    }
    const momentID = this.m.id;
    const short = text.length > 60 ? `${text.slice(0, 57)}…` : text;
    clear(
      this.keepBar,
      h('span', {}, `“${short}”`),
      // Pressing the button must not drop the selection it is about.
      h('button', { type: 'button', class: 'primary', 'data-testid': 'keep-phrase', onmousedown: (e: Event) => e.preventDefault(), onclick: () => void this.keep(text, momentID) }, 'Keep this phrase'),
    );
    this.keepBar.hidden = false;
  }

  private async keep(text: string, momentID: string): Promise<void> {
    try {
      const p = await backend.phrases.keep(text, momentID);
      toast(`Kept “${p.text}”. It is in Phrases.`);
      this.keepBar.hidden = true;
      document.getSelection()?.removeAllRanges();
    } catch (e) {
      toast(errorText(e), 'error');
    }
  }

  private async saveCaption(text: string): Promise<void> {
    if (!this.m) return;
    try {
      this.m = await backend.moments.setCaption(this.m.id, text);
      this.hooks.changed(this.m);
      toast('Caption saved.');
    } catch (e) {
      toast(errorText(e), 'error');
    }
  }

  private async careful(): Promise<void> {
    if (!this.m) return;
    try {
      await backend.moments.askCareful(this.m.id, ulid());
      toast('Pippa will take a careful look.');
      await this.reload();
    } catch (e) {
      toast(errorText(e), 'error');
    }
  }

  private async remove(): Promise<void> {
    const m = this.m;
    if (!m) return;
    const ok = await confirmDialog('Delete this moment?', 'It disappears from Spark, with its readings. This cannot be undone from here.', 'Delete');
    if (!ok) return;
    try {
      await backend.moments.remove(m.id);
      this.close();
      this.hooks.deleted(m.id);
      toast('Moment deleted.');
    } catch (e) {
      toast(errorText(e), 'error');
    }
  }
}
