import { backend, type Moment } from './backend';
import { h, when } from './dom';
import { toastError } from './feedback';
import { openMoment, kindWord } from './moment';
import { onMoment } from './store';
import { preview, firstLines } from './words';
import type { Screen } from './screen';

const PAGE = 200; // the engine's largest page
const GAP = 12; // px between tiles
const MIN_TILE = 168; // px: tiles are at least this wide
const LABEL = 112; // px under the image: the caption or date, and the reading's first lines
const OVERSCAN = 3; // rows rendered above and below the view

/**
 * MomentsScreen lists every moment, newest first, as a virtualized grid:
 * only the rows in view (and a few around) exist in the DOM, each tile has
 * a fixed square image box so nothing jumps as small copies load lazily,
 * and pages are fetched from the engine's cursor as the user scrolls.
 */
export class MomentsScreen implements Screen {
  readonly el: HTMLElement;
  private scroller = h('div', { class: 'scroller', 'data-testid': 'moments-scroller', tabindex: 0, 'aria-label': 'Moments, newest first' });
  private spacer = h('div', { class: 'spacer' });
  private grid = h('ul', { class: 'grid', role: 'list' });
  private empty = h('p', { class: 'empty', hidden: true }, 'No moments yet. Add photos and they will show here.');
  private count = h('span', { class: 'muted', 'data-testid': 'moments-count' });
  private items: Moment[] = [];
  private next = '';
  private loading = false;
  private ended = false;
  private cols = 1;
  private tile = MIN_TILE;
  private rowH = MIN_TILE + LABEL + GAP;
  private rendered = new Map<number, Tile>();
  private pool: Tile[] = [];
  private local = new Map<string, { m: Moment | null; at: number }>();
  private loaded = false;
  private refreshTimer = 0;

  constructor() {
    onMoment((e) => {
      if (e.kind === 'deleted') this.drop(e.id);
      else if (e.moment) {
        if (this.items.some((m) => m.id === e.id)) this.replace(e.moment);
        else this.refreshSoon();
      }
    });
    this.scroller.append(this.spacer);
    this.spacer.append(this.grid);
    this.el = h(
      'section',
      { class: 'screen moments', 'aria-label': 'Moments' },
      h('div', { class: 'row between' }, h('h1', {}, 'Moments'), this.count),
      this.empty,
      this.scroller,
    );
    this.scroller.addEventListener('scroll', () => this.render(), { passive: true });
    new ResizeObserver(() => this.layout()).observe(this.scroller);
    backend.onOutbox((e) => {
      if (['added', 'done', 'removed'].includes(e.kind)) this.refreshSoon();
    });
    backend.onCapture((e) => {
      if (e.kind === 'done') this.refreshSoon();
    });
  }

  show(): void {
    if (!this.loaded) {
      this.loaded = true;
      void this.loadMore();
    } else {
      void this.refreshTop();
    }
    this.layout();
  }

  private refreshSoon(): void {
    if (!this.loaded) return;
    clearTimeout(this.refreshTimer);
    this.refreshTimer = window.setTimeout(() => void this.refreshTop(), 400);
  }

  /** refreshTop re-reads the first page and merges it: new moments come
   * in at the top, delivered captures turn into the engine's moments. */
  private async refreshTop(): Promise<void> {
    const asked = performance.now();
    let page;
    try {
      page = await backend.moments.page('', PAGE);
    } catch {
      return;
    }
    page.moments = this.fresher(page.moments, asked);
    const ids = new Set(page.moments.map((m) => m.id));
    const rest = this.items.filter((m) => !ids.has(m.id) && !m.pending);
    const oldestTop = page.moments.filter((m) => !m.pending).at(-1)?.id ?? '';
    // Keep older pages only if they continue where the new first page ends.
    this.items = [...page.moments, ...rest.filter((m) => oldestTop === '' || m.id < oldestTop)];
    if (this.items.length <= page.moments.length) {
      this.next = page.next;
      this.ended = page.next === '';
    }
    this.invalidate();
  }

  private async loadMore(): Promise<void> {
    if (this.loading || this.ended) return;
    this.loading = true;
    try {
      const asked = performance.now();
      const page = await backend.moments.page(this.next, PAGE);
      page.moments = this.fresher(page.moments, asked);
      const have = new Set(this.items.map((m) => m.id));
      this.items.push(...page.moments.filter((m) => !have.has(m.id)));
      this.next = page.next;
      this.ended = page.next === '';
      // Appending moves no tile: keep the ones drawn, only grow the list.
      this.counted();
      this.layout();
    } catch (e) {
      toastError(e);
      this.ended = false;
    } finally {
      this.loading = false;
    }
  }

  private invalidate(): void {
    this.release();
    this.counted();
    this.layout();
  }

  private place(t: Tile, m: Moment, i: number): void {
    t.bind(m, GAP + (i % this.cols) * (this.tile + GAP), GAP + Math.floor(i / this.cols) * this.rowH, this.tile);
  }

  private release(): void {
    for (const t of this.rendered.values()) {
      t.li.remove();
      this.pool.push(t);
    }
    this.rendered.clear();
  }

  private counted(): void {
    this.empty.hidden = this.items.length > 0;
    this.count.textContent = this.items.length === 0 ? '' : `${this.items.length}${this.ended ? '' : '+'} moments`;
  }

  private layout(): void {
    const w = this.scroller.clientWidth;
    if (w === 0) return;
    const cols = Math.max(1, Math.floor((w - GAP + GAP) / (MIN_TILE + GAP)));
    const tile = Math.floor((w - GAP * (cols + 1)) / cols);
    if (cols !== this.cols || tile !== this.tile) {
      this.cols = cols;
      this.tile = tile;
      this.rowH = tile + LABEL + GAP;
      this.release();
    }
    const rows = Math.ceil(this.items.length / this.cols);
    this.spacer.style.height = `${rows * this.rowH + GAP}px`;
    this.render();
  }

  private render(): void {
    const top = this.scroller.scrollTop;
    const height = this.scroller.clientHeight;
    const first = Math.max(0, Math.floor(top / this.rowH) - OVERSCAN);
    const last = Math.min(Math.ceil(this.items.length / this.cols) - 1, Math.ceil((top + height) / this.rowH) + OVERSCAN);
    const from = first * this.cols;
    const to = Math.min(this.items.length - 1, (last + 1) * this.cols - 1);
    for (const [i, t] of this.rendered) {
      if (i < from || i > to) {
        t.li.remove();
        this.pool.push(t);
        this.rendered.delete(i);
      }
    }
    // The DOM keeps the tiles in list order, so Tab moves through them in
    // the order they are seen: new tiles above those drawn go first.
    let firstDrawn = Infinity;
    for (const i of this.rendered.keys()) firstDrawn = Math.min(firstDrawn, i);
    const above = document.createDocumentFragment();
    for (let i = from; i <= to; i++) {
      if (this.rendered.has(i)) continue;
      const m = this.items[i];
      if (!m) continue;
      // Tiles leaving the view are reused for those coming in, so a scroll
      // moves and refills a few dozen elements instead of making new ones.
      const t = this.pool.pop() ?? new Tile((mo) => openMoment(mo, () => this.items));
      this.place(t, m, i);
      this.rendered.set(i, t);
      if (i < firstDrawn) above.append(t.li);
      else this.grid.append(t.li);
    }
    this.grid.prepend(above);
    if (!this.ended && to >= this.items.length - this.cols * 4) void this.loadMore();
  }

  /** fresher keeps edits and deletions made here while a page was on its
   * way: an answer asked for before them must not bring back the old. */
  private fresher(ms: Moment[], asked: number): Moment[] {
    return ms.flatMap((m) => {
      const l = this.local.get(m.id);
      if (!l || l.at < asked) return [m];
      return l.m ? [l.m] : [];
    });
  }

  private replace(m: Moment): void {
    this.local.set(m.id, { m, at: performance.now() });
    const i = this.items.findIndex((x) => x.id === m.id);
    if (i >= 0) {
      this.items[i] = m;
      const t = this.rendered.get(i);
      if (t) this.place(t, m, i);
    }
  }

  private drop(id: string): void {
    this.local.set(id, { m: null, at: performance.now() });
    this.items = this.items.filter((m) => m.id !== id);
    this.invalidate();
  }
}

/** Tile is one reusable grid cell: a button with a fixed square image box. */
class Tile {
  readonly li: HTMLLIElement;
  private button: HTMLButtonElement;
  private frame: HTMLDivElement;
  private img: HTMLImageElement;
  private note: HTMLDivElement;
  private pill: HTMLSpanElement;
  private label: HTMLDivElement;
  private title: HTMLSpanElement;
  private when: HTMLSpanElement;
  private said: HTMLParagraphElement;
  private moment: Moment | null = null;

  constructor(open: (m: Moment) => void) {
    this.img = h('img', { alt: '', decoding: 'async' });
    this.note = h('div', { class: 'note-face' });
    this.pill = h('span', { class: 'pill' });
    this.frame = h('div', { class: 'frame' }, this.img, this.note, this.pill);
    this.title = h('span', { class: 'tile-title' });
    this.when = h('span', { class: 'tile-when muted' });
    this.said = h('p', { class: 'tile-reading', 'data-testid': 'tile-reading' });
    this.label = h('div', { class: 'tile-label' }, h('div', { class: 'tile-head' }, this.title, this.when), this.said);
    this.button = h('button', { type: 'button', class: 'tile-button', 'data-testid': 'moment-tile' }, this.frame, this.label);
    this.button.addEventListener('click', () => {
      if (this.moment) open(this.moment);
    });
    this.li = h('li', { class: 'tile' }, this.button);
  }

  bind(m: Moment, x: number, y: number, size: number): void {
    this.moment = m;
    this.li.style.transform = `translate(${x}px, ${y}px)`;
    this.li.style.width = `${size}px`;
    this.frame.style.height = `${size}px`;
    const date = when(m.takenAt || m.createdAt);
    const b = this.button;
    b.dataset.moment = m.id;
    b.dataset.pending = m.pending ? 'true' : 'false';
    const p = preview(m);
    const name = m.caption || (m.kind === 'photo' ? m.name : '') || kindWord(m);
    b.setAttribute('aria-label', `${name}, ${date}${m.pending ? ', not sent yet' : ''}. ${p.text}`);
    if (m.thumb) {
      if (this.img.getAttribute('src') !== m.thumb) this.img.src = m.thumb;
      this.img.alt = m.caption || m.name || 'Photo';
      this.img.hidden = false;
      this.note.hidden = true;
    } else {
      this.img.removeAttribute('src');
      this.img.hidden = true;
      this.note.hidden = false;
      this.note.textContent = m.caption || kindWord(m);
    }
    const [text, cls] = pillFor(m);
    this.pill.hidden = text === '';
    this.pill.textContent = text;
    this.pill.className = `pill ${cls}`;
    this.title.textContent = m.caption && m.thumb ? m.caption : m.kind === 'photo' ? date : kindWord(m);
    this.when.textContent = m.caption && m.thumb ? date : m.kind === 'photo' ? '' : date;
    this.said.textContent = firstLines(p.text, 160);
    this.said.dataset.state = p.state;
  }
}

function pillFor(m: Moment): [string, string] {
  if (m.pending) return ['Not sent yet', 'waiting'];
  return ['', ''];
}
