import { backend, markPaint, tile, type Moment } from './backend';
import { h, clear } from './dom';
import { toastError } from './feedback';
import { openMoment } from './moment';
import { onMoment } from './store';
import { place, onPlace } from './place';
import { showing } from './onscreen';
import { offerWords } from './wordsreader';
import { momentsWords as MW, preview, firstLines, kindWord, titleOf, fullPhotoWords, pippaMissing, emptyMomentsWords, deletedWords, twoCaptionsWords } from './words';
import { RecentlyDeleted } from './deleted';
import { tileDate, type Order } from './timeline';
import { MomentList, rowsOf, type Row } from './momentlist';
import type { Screen } from './screen';
import { MoveBlock } from './move';

const PAGE = 200; // the engine's largest page
const GAP = 12; // px between tiles
const MIN_TILE = 168; // px: tiles are at least this wide
const LABEL = 112; // px under the image: the caption or date, and the reading's first lines
// A short window (200% zoom, the offline banner): the label keeps the
// caption and the date only (on two lines if need be), and the tiles narrow, so that a whole row
// still shows (issue 36).
const LABEL_SHORT = 76;
const MIN_TILE_SHORT = 64;
const HEAD = 48; // px of a heading row (Today, This week, a month)
const OVERSCAN = 600; // px rendered above and below the view

/**
 * MomentsScreen is the timeline: every moment, newest first, by the date
 * its photo was taken (or, with the toggle, by when it was added), under
 * Today, This week and month headings. It is a virtualized grid: only the
 * rows in view (and some around) exist in the DOM, each tile has a fixed
 * square image box so nothing jumps as small copies load lazily. Every
 * page of moments is fetched in the background (the order by date taken
 * needs them all); the arrow keys move through the tiles. This is the
 * view: the list itself, its pages and merges, is momentlist.ts.
 */
export class MomentsScreen implements Screen {
  readonly el: HTMLElement;
  private scroller = h('div', { class: 'scroller', 'data-testid': 'moments-scroller' });
  private spacer = h('div', { class: 'spacer' });
  /** grid is the list of tiles, named for a screen reader (a name on the
   * plain div that scrolls it would be one no reader may use). */
  private grid = h('ul', { class: 'grid', role: 'list', 'aria-label': MW.title });
  /** empty is what an empty Moments says, with the header's "Add photos"
   * (addPhotos) as a button of its own. */
  private empty: HTMLElement;
  private count = h('span', { class: 'muted', 'data-testid': 'moments-count' });
  /** move offers to bring this computer's moments along when the engine
   * Spark uses lacks them: Settings' own block (app/move.go), here too. */
  private move = MoveBlock.make('moments');
  private list = new MomentList<Moment>(
    async (cursor, n) => {
      const page = await backend.moments.page(cursor, n);
      // Photos without words yet are read on this computer (issue 37).
      offerWords(page.moments);
      return page;
    },
    () => this.invalidate(),
    (e) => toastError(e),
    PAGE,
  );
  private rows: Row[] = [];
  /** heading is each moment's heading, by its index in the view. */
  private heading: string[] = [];
  private height = 0;
  private cols = 1;
  private tile = MIN_TILE;
  private label = LABEL;
  private rendered = new Map<number, Tile>();
  private painted = false;
  private heads = new Map<string, HTMLElement>();
  private pool: Tile[] = [];
  private loaded = false;
  private refreshTimer = 0;
  private order: Order = localStorage.getItem('spark.order') === 'added' ? 'added' : 'taken';
  /** active is the tile that Tab reaches (roving tabindex). */
  private active = 0;
  /** deleted is Recently deleted, opened from the header. */
  private deleted = new RecentlyDeleted();

  constructor(addPhotos: () => void = () => {}) {
    this.empty = h(
      'div',
      { class: 'empty', hidden: true, 'data-testid': 'moments-empty' },
      h('p', {}, emptyMomentsWords.said),
      h('button', { type: 'button', class: 'primary', onclick: addPhotos }, emptyMomentsWords.add),
    );
    this.scroller.append(this.spacer);
    this.spacer.append(this.grid);
    const toggle = h('div', { class: 'order', role: 'radiogroup', 'aria-label': MW.orderBy });
    const choice = (o: Order, label: string) => {
      const id = `order-${o}`;
      const input = h('input', { type: 'radio', name: 'order', id, value: o, 'data-testid': id });
      input.checked = this.order === o;
      input.addEventListener('change', () => input.checked && this.setOrder(o));
      toggle.append(h('span', { class: 'order-choice' }, input, h('label', { for: id }, label)));
    };
    toggle.append(h('span', { class: 'muted' }, MW.orderLabel));
    choice('taken', MW.taken);
    choice('added', MW.added);
    this.el = h(
      'section',
      { class: 'screen moments', 'aria-label': MW.title },
      h(
        'div',
        { class: 'row between' },
        h('h1', {}, MW.title),
        // Recently deleted first on the right: the order and the count
        // keep their place at the right edge, and the menu that folds out
        // at 200% (on the left) covers none of it.
        h(
          'div',
          { class: 'row' },
          h(
            'button',
            { type: 'button', class: 'link', 'data-testid': 'open-deleted', onclick: () => void this.deleted.open() },
            h('span', { class: 'wide-only' }, deletedWords.open),
            h('span', { class: 'narrow-only' }, deletedWords.openShort),
          ),
          toggle,
          this.count,
        ),
      ),
      this.move.el,
      this.empty,
      this.scroller,
    );
    this.scroller.addEventListener('scroll', () => this.render(), { passive: true });
    this.grid.addEventListener('keydown', (e) => this.key(e));
    new ResizeObserver(() => this.layout()).observe(this.scroller);
    onMoment((e) => {
      if (e.kind === 'many') this.reloadSoon();
      else if (e.kind === 'deleted') this.drop(e.id);
      else if (e.moment) {
        if (this.list.has(e.id)) this.replace(e.moment);
        else this.refreshSoon();
      }
    });
    backend.onOutbox((e) => {
      if (e.kind === 'added' || e.kind === 'done' || e.kind === 'removed') this.refreshSoon();
    });
    backend.onCapture((e) => {
      if (e.kind === 'done') this.refreshSoon();
    });
    backend.onEngine(() => this.engineSwitched());
    // Pippa set up (or found missing): the tiles that wait for her say so
    // anew. Only then: an engine with its Pippa changes no tile's words.
    let missing = pippaMissing(place());
    onPlace((p) => {
      if (pippaMissing(p) === missing) return;
      missing = pippaMissing(p);
      this.invalidate();
    });
  }

  /** engineSwitched empties the timeline and reads it again from the
   * engine Spark now uses: none of the moments shown are that engine's. */
  private engineSwitched(): void {
    this.list.switched();
    clearTimeout(this.refreshTimer);
    this.active = 0;
    this.scroller.scrollTop = 0;
    this.invalidate();
    if (this.loaded) void this.list.loadAll();
    void this.move.check();
  }

  show(): void {
    void this.move.check(30_000);
    if (!this.loaded) {
      this.loaded = true;
      void this.list.loadAll();
    } else {
      void this.list.refreshTop();
    }
    this.layout();
  }

  /** moments is the timeline's list, in its order (the viewer steps
   * through it). */
  moments(): Moment[] {
    return this.list.view;
  }

  private setOrder(o: Order): void {
    this.order = o;
    localStorage.setItem('spark.order', o);
    this.active = 0;
    this.scroller.scrollTop = 0;
    this.invalidate();
  }

  /** reloadSoon reads every page again (many moments changed at once). */
  private reloadSoon(): void {
    if (!this.loaded) return;
    clearTimeout(this.refreshTimer);
    this.refreshTimer = window.setTimeout(() => this.list.reload(), 400);
  }

  private refreshSoon(): void {
    if (!this.loaded) return;
    clearTimeout(this.refreshTimer);
    this.refreshTimer = window.setTimeout(() => void this.list.refreshTop(), 400);
  }

  private invalidate(): void {
    // A redraw must not take the keyboard from the tile that has it.
    const active = document.activeElement as HTMLElement | null;
    const focused = active && this.grid.contains(active) ? active.dataset.moment : undefined;
    this.list.sort(this.order);
    this.release();
    this.counted();
    this.layout();
    if (focused) {
      const i = this.list.view.findIndex((m) => m.id === focused);
      if (i >= 0) this.focusTile(i);
    }
  }

  private release(): void {
    for (const t of this.rendered.values()) {
      t.li.remove();
      this.pool.push(t);
    }
    this.rendered.clear();
    for (const el of this.heads.values()) el.remove();
    this.heads.clear();
  }

  private counted(): void {
    const n = this.list.view.length;
    const ended = this.list.ended;
    this.empty.hidden = n > 0 || !ended;
    this.count.textContent = n === 0 ? '' : n === 1 && ended ? '1 moment' : `${n}${ended ? '' : '+'} moments`;
    this.grid.setAttribute('aria-label', this.order === 'taken' ? MW.byTaken : MW.byAdded);
  }

  private layout(): void {
    const w = this.scroller.clientWidth;
    if (w === 0) return;
    let cols = Math.max(1, Math.floor(w / (MIN_TILE + GAP)));
    const high = this.scroller.clientHeight;
    const short = high > 0 && high < HEAD + 2 * GAP + MIN_TILE + LABEL;
    const label = short ? LABEL_SHORT : LABEL;
    if (short) {
      // As many more columns as make a row (under its heading) fit.
      const most = Math.max(MIN_TILE_SHORT, high - HEAD - 2 * GAP - label);
      cols = Math.max(cols, Math.ceil((w - GAP) / (most + GAP)));
    }
    const tile = Math.floor((w - GAP * (cols + 1)) / cols);
    if (cols !== this.cols || tile !== this.tile || label !== this.label) {
      this.cols = cols;
      this.tile = tile;
      this.label = label;
      this.scroller.classList.toggle('short', short);
      this.release();
    }
    // Rows: each section's moments in rows of cols, a section that fits
    // whole in what is left of the last row joining it there.
    const rowH = tile + label + GAP;
    const { rows, heading } = rowsOf(this.list.view, this.order, cols);
    let y = 0;
    for (const row of rows) {
      if (row.heads.length > 0) y += HEAD;
      row.y = y;
      y += rowH;
    }
    this.rows = rows;
    this.heading = heading;
    this.height = y + GAP;
    this.spacer.style.height = `${this.height}px`;
    this.render();
  }

  /** rowAt is the index of the last row starting at or above y. */
  private rowAt(y: number): number {
    let lo = 0;
    let hi = this.rows.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.rows[mid]?.y ?? 0) <= y) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private render(): void {
    const top = this.scroller.scrollTop - OVERSCAN;
    const bottom = this.scroller.scrollTop + this.scroller.clientHeight + OVERSCAN;
    const first = this.rowAt(Math.max(0, top));
    const want = new Set<number>(); // tile indices
    const heads = new Set<string>(); // "row:head" of the headings in view
    for (let r = first; r < this.rows.length; r++) {
      const row = this.rows[r];
      if (!row || row.y - HEAD > bottom) break;
      row.heads.forEach((_, k) => heads.add(`${r}:${k}`));
      for (let i = row.from; i <= row.to; i++) want.add(i);
    }
    for (const [i, t] of this.rendered) {
      if (!want.has(i)) {
        t.li.remove();
        this.pool.push(t);
        this.rendered.delete(i);
      }
    }
    for (const [r, el] of this.heads) {
      if (!heads.has(r)) {
        el.remove();
        this.heads.delete(r);
      }
    }
    for (const rk of heads) {
      if (this.heads.has(rk)) continue;
      const [r, k] = rk.split(':').map(Number) as [number, number];
      const row = this.rows[r];
      const hd = row?.heads[k];
      if (!row || !hd) continue;
      const y = row.y - HEAD + GAP;
      const el = h('li', { class: 'timeline-head', 'data-testid': 'timeline-head', 'data-group': hd.key, 'data-y': y }, h('h2', {}, hd.label));
      el.style.transform = `translate(${GAP + hd.col * (this.tile + GAP)}px, ${y}px)`;
      el.style.width = `${hd.span * (this.tile + GAP) - GAP}px`;
      this.heads.set(rk, el);
      this.grid.append(el);
    }
    // Tiles leaving the view are reused for those coming in, so a scroll
    // moves and refills a few dozen elements. A moment drawn again (the
    // list read anew) keeps its own element, and a moment new to the view
    // takes only an element no moment in view had: a click or the focus
    // on a tile never lands on another moment meanwhile.
    const coming: { i: number; m: Moment; y: number; col: number }[] = [];
    for (let r = first; r < this.rows.length; r++) {
      const row = this.rows[r];
      if (!row || row.y > bottom) break;
      for (let i = row.from; i <= row.to; i++) {
        const m = this.list.view[i];
        if (m && !this.rendered.has(i)) coming.push({ i, m, y: row.y, col: i - row.from });
      }
    }
    const ids = new Set(coming.map((c) => c.m.id));
    const own = new Map<string, Tile>();
    this.pool = this.pool.filter((t) => {
      if (!ids.has(t.shows) || own.has(t.shows)) return true;
      own.set(t.shows, t);
      return false;
    });
    for (const c of coming) {
      const t = own.get(c.m.id) ?? this.pool.pop() ?? new Tile((mo) => openMoment(mo, () => this.list.view));
      this.bindTile(t, c.m, c.i, c.y, c.col);
      this.rendered.set(c.i, t);
      this.grid.append(t.li);
    }
    // One tile is always reachable with Tab: the active one, or else the
    // first one in view.
    if (!this.rendered.has(this.active) && this.rendered.size > 0) {
      const viewTop = this.scroller.scrollTop;
      let best = -1;
      for (const [i, t] of this.rendered) {
        const y = Number(t.li.dataset.y);
        if (y >= viewTop && (best < 0 || i < best)) best = i;
      }
      if (best < 0) best = Math.min(...this.rendered.keys());
      this.active = best;
      this.rendered.get(best)?.setActive(true);
    }
    // The first tiles with moments, once drawn: a mark in the app's log (e2e/replica-paint.sh).
    if (!this.painted && this.rendered.size > 0) {
      this.painted = true;
      markPaint('tiles');
      requestAnimationFrame(() => setTimeout(() => backend.moments.firstPaint(this.rendered.size).catch(() => {})));
    }
    // Their small copies stay on this computer while they show.
    showing('moments', [...this.rendered.values()].map((t) => t.shows).filter(Boolean));
  }

  private bindTile(t: Tile, m: Moment, i: number, y: number, col: number): void {
    t.bind(m, GAP + col * (this.tile + GAP), y + GAP, this.tile, tileDate(m, this.order), i === this.active);
    t.li.dataset.index = String(i);
    t.li.dataset.y = String(y + GAP);
    t.li.dataset.heading = this.heading[i] ?? '';
  }

  /** key moves through the tiles with the arrow keys, Home and End. */
  private key(e: KeyboardEvent): void {
    const li = (e.target as HTMLElement).closest<HTMLElement>('.tile');
    if (!li) return;
    const i = Number(li.dataset.index);
    const n = this.list.view.length;
    let to = i;
    const r = this.rows.findIndex((row) => i >= row.from && i <= row.to);
    const row = this.rows[r];
    const col = row ? i - row.from : 0;
    const line = (dir: 1 | -1): number => {
      const x = this.rows[r + dir];
      return x ? Math.min(x.from + col, x.to) : i;
    };
    switch (e.key) {
      case 'ArrowRight':
        to = Math.min(n - 1, i + 1);
        break;
      case 'ArrowLeft':
        to = Math.max(0, i - 1);
        break;
      case 'ArrowDown':
        to = line(1);
        break;
      case 'ArrowUp':
        to = line(-1);
        break;
      case 'Home':
        to = 0;
        break;
      case 'End':
        to = n - 1;
        break;
      default:
        return;
    }
    e.preventDefault();
    this.focusTile(to);
  }

  private focusTile(i: number): void {
    const prev = this.rendered.get(this.active);
    this.active = i;
    prev?.setActive(false);
    const row = this.rows.find((x) => i >= x.from && i <= x.to);
    if (row) {
      const rowH = this.tile + this.label + GAP;
      const top = row.y + GAP;
      const sc = this.scroller;
      if (top < sc.scrollTop) sc.scrollTop = Math.max(0, top - HEAD);
      else if (top + rowH > sc.scrollTop + sc.clientHeight) sc.scrollTop = top + rowH - sc.clientHeight;
    }
    this.render();
    const t = this.rendered.get(i);
    t?.setActive(true);
    t?.focus();
  }

  private replace(m: Moment): void {
    const i = this.list.replace(m);
    if (i >= 0) {
      // The same place in the timeline: redraw the one tile.
      const t = this.rendered.get(i);
      const row = this.rows.find((x) => i >= x.from && i <= x.to);
      if (t && row) this.bindTile(t, m, i, row.y, i - row.from);
    } else {
      this.invalidate();
    }
  }

  private drop(id: string): void {
    if (this.list.drop(id)) this.invalidate();
  }
}

/** Tile is one reusable grid cell: a button with a fixed square image box,
 * the caption (or the kind of a note), the date, and the first lines of
 * Pippa's latest reading. */
class Tile {
  readonly li: HTMLLIElement;
  private button: HTMLButtonElement;
  private frame: HTMLDivElement;
  private img: HTMLImageElement;
  private note: HTMLDivElement;
  private pill: HTMLSpanElement;
  private title: HTMLSpanElement;
  private when: HTMLSpanElement;
  private said: HTMLParagraphElement;
  private moment: Moment | null = null;

  /** shows is the id of the moment the tile shows ("" before any). */
  get shows(): string {
    return this.moment?.id ?? '';
  }

  constructor(open: (m: Moment) => void) {
    this.img = h('img', { alt: '', decoding: 'async' });
    this.note = h('div', { class: 'note-face' });
    this.pill = h('span', { class: 'pill' });
    this.frame = h('div', { class: 'frame' }, this.img, this.note, this.pill);
    this.title = h('span', { class: 'tile-title' });
    this.when = h('span', { class: 'tile-when muted' });
    this.said = h('p', { class: 'tile-reading', 'data-testid': 'tile-reading' });
    const label = h('div', { class: 'tile-label' }, h('div', { class: 'tile-head' }, this.title, this.when), this.said);
    this.button = h('button', { type: 'button', class: 'tile-button', 'data-testid': 'moment-tile', tabindex: -1 }, this.frame, label);
    this.button.addEventListener('click', () => {
      if (this.moment) open(this.moment);
    });
    this.li = h('li', { class: 'tile' }, this.button);
  }

  bind(m: Moment, x: number, y: number, size: number, date: string, active: boolean): void {
    this.moment = m;
    this.li.style.transform = `translate(${x}px, ${y}px)`;
    this.li.style.width = `${size}px`;
    this.frame.style.height = `${size}px`;
    const b = this.button;
    b.dataset.moment = m.id;
    b.dataset.kind = m.kind;
    b.dataset.pending = m.pending ? 'true' : 'false';
    this.setActive(active);
    const p = preview(m, place());
    const kind = kindWord(m);
    const name = titleOf(m);
    // The name is what the tile shows (its title, date and reading), so
    // what is heard is what is seen.
    b.title = `${name}, ${date}`;
    if (m.thumb) {
      const src = tile(m.thumb);
      if (this.img.getAttribute('src') !== src) this.img.src = src;
      this.img.alt = ''; // the title beside it says what it is
      this.img.hidden = false;
      this.note.hidden = true;
    } else {
      this.img.removeAttribute('src');
      this.img.hidden = true;
      this.note.hidden = false;
      clear(this.note, h('span', { class: 'note-kind' }, kind), h('span', { class: 'note-body' }, m.caption));
    }
    // A change Dad made that waits on this computer shows as such.
    // A photo kept without its full photo says so too.
    const full = m.pending ? '' : fullPhotoWords(m.full_photo).tile;
    // A caption written on another computer kept beside this one waits
    // for Dad to choose.
    const two = (m.alternatives ?? []).length > 0 ? twoCaptionsWords : '';
    this.pill.hidden = !m.pending && !m.waits_for && !full && !two;
    this.pill.textContent = m.pending ? MW.notSent : m.waits_for ? MW.changeNotSent : two || full;
    b.dataset.alternatives = two ? 'true' : 'false';
    b.dataset.waiting = m.waits_for ? 'true' : 'false';
    b.dataset.full = m.full_photo || '';
    this.pill.className = m.pending || m.waits_for ? 'pill waiting' : 'pill';
    // The date has a line of its own, in the small type that fits it
    // whole: a photo without a caption shows no title, not a date cut
    // short in the title's bold type.
    this.title.textContent = m.kind === 'photo' ? m.caption : kind;
    this.when.textContent = date;
    this.said.textContent = firstLines(p.text, 160);
    this.said.dataset.state = p.state;
  }

  setActive(on: boolean): void {
    this.button.tabIndex = on ? 0 : -1;
  }

  focus(): void {
    this.button.focus();
  }
}
