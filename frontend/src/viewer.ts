// The photo viewer: a photo as large as the window, to read a letter's small
// print. Zoom with the wheel, a pinch or + and −; drag to pan; Fit and 1:1;
// Rotate (for display only: the photo itself is not changed); ← and → step
// through the photos; Escape closes. The small copy shows at once and the
// original is fetched only now, replacing it once it has loaded.
import { backend, type Moment } from './backend';
import { h, rehomeToasts, when } from './dom';
import { drawable, titleOf, fullPhotoWords, viewerWords, viewerLabel } from './words';

const MIN = 0.05;
const MAX = 8;

export interface ViewRequest {
  list: Moment[];
  index: number;
  /** closed is told which moment was shown last. */
  closed?: (m: Moment) => void;
}

export class Viewer {
  private dlg = h('dialog', { class: 'viewer', 'aria-label': viewerLabel, 'data-testid': 'viewer' });
  private stage = h('div', { class: 'viewer-stage', tabindex: -1, 'data-testid': 'viewer-stage' });
  private img = h('img', { class: 'viewer-img', alt: '', draggable: 'false', 'data-testid': 'viewer-img' });
  private title = h('h2', { class: 'viewer-title' });
  private count = h('span', { class: 'viewer-count', 'data-testid': 'viewer-count' });
  private note = h('p', { class: 'viewer-note', 'aria-live': 'polite', 'data-testid': 'viewer-note' });
  private zoomLabel = h('span', { class: 'viewer-zoom', 'aria-live': 'off' });
  private prevBtn: HTMLButtonElement;
  private nextBtn: HTMLButtonElement;
  private req: ViewRequest | null = null;
  private index = 0;
  private m: Moment | null = null;
  // The view: scale of the image's own pixels, offset of its centre from
  // the stage's centre (CSS px), rotation in quarter turns.
  private scale = 1;
  private x = 0;
  private y = 0;
  private rot = 0;
  private fitted = true;
  private natural = { w: 0, h: 0 };
  private loadToken = 0;
  private pointers = new Map<number, { x: number; y: number }>();
  private pinch: { d: number; scale: number; cx: number; cy: number } | null = null;
  private drag: { x: number; y: number; ox: number; oy: number } | null = null;

  constructor() {
    const btn = (label: string, text: string, run: () => void, testid: string) =>
      h('button', { type: 'button', class: 'viewer-btn', 'aria-label': label, title: label, 'data-testid': testid, onclick: run }, text);
    this.prevBtn = btn(viewerWords.previous, '‹', () => this.step(-1), 'viewer-prev');
    this.nextBtn = btn(viewerWords.next, '›', () => this.step(1), 'viewer-next');
    const bar = h(
      'div',
      { class: 'viewer-bar', role: 'toolbar', 'aria-label': viewerWords.controls },
      this.title,
      this.count,
      h('span', { class: 'grow' }),
      btn(viewerWords.zoomOut, '−', () => this.zoomBy(1 / 1.25), 'viewer-zoom-out'),
      this.zoomLabel,
      btn(viewerWords.zoomIn, '+', () => this.zoomBy(1.25), 'viewer-zoom-in'),
      h('button', { type: 'button', class: 'viewer-btn text', title: viewerWords.fitTitle, 'data-testid': 'viewer-fit', onclick: () => this.fit() }, viewerWords.fit),
      h('button', { type: 'button', class: 'viewer-btn text', title: viewerWords.actualTitle, 'data-testid': 'viewer-actual', onclick: () => this.actual() }, viewerWords.actual),
      h('button', { type: 'button', class: 'viewer-btn text', title: viewerWords.rotateTitle, 'data-testid': 'viewer-rotate', onclick: () => this.rotate() }, viewerWords.rotate),
      h('button', { type: 'button', class: 'viewer-btn close', 'aria-label': viewerWords.close, title: viewerWords.closeTitle, 'data-testid': 'viewer-close', onclick: () => this.close() }, '✕'),
    );
    // The note is at the foot of the photo, not of the window: a toast
    // has its own band under the photo and never covers what it says.
    this.stage.append(this.img, this.prevBtn, this.nextBtn, this.note);
    this.dlg.append(bar, this.stage);
    document.body.append(this.dlg);

    this.dlg.addEventListener('keydown', (e) => this.key(e));
    this.dlg.addEventListener('close', () => {
      const m = this.m;
      const done = this.req?.closed;
      this.req = null;
      this.img.removeAttribute('src');
      rehomeToasts();
      if (m && done) done(m);
    });
    this.stage.addEventListener('wheel', (e) => this.wheel(e), { passive: false });
    this.stage.addEventListener('pointerdown', (e) => this.down(e));
    this.stage.addEventListener('pointermove', (e) => this.move(e));
    this.stage.addEventListener('pointerup', (e) => this.up(e));
    this.stage.addEventListener('pointercancel', (e) => this.up(e));
    this.stage.addEventListener('dblclick', (e) => {
      if (e.target !== this.img) return;
      if (this.fitted) this.actual(this.point(e));
      else this.fit();
    });
    new ResizeObserver(() => {
      if (this.dlg.open && this.fitted) this.fit();
    }).observe(this.stage);
  }

  open(req: ViewRequest): void {
    if (req.list.length === 0) return;
    this.req = req;
    if (!this.dlg.open) this.dlg.showModal();
    rehomeToasts();
    this.show(Math.max(0, Math.min(req.index, req.list.length - 1)));
    this.stage.focus();
  }

  close(): void {
    if (this.dlg.open) this.dlg.close();
  }

  private step(d: number): void {
    const n = this.req?.list.length ?? 0;
    const i = this.index + d;
    if (i >= 0 && i < n) this.show(i);
  }

  private show(i: number): void {
    const list = this.req?.list ?? [];
    const m = list[i];
    if (!m) return;
    this.index = i;
    this.m = m;
    this.rot = 0;
    this.title.textContent = `${titleOf(m)} · ${when(m.taken_at || m.created_at)}`;
    this.count.textContent = list.length > 1 ? `${i + 1} of ${list.length}` : '';
    this.prevBtn.hidden = i === 0;
    this.nextBtn.hidden = i === list.length - 1;
    this.img.alt = titleOf(m);
    this.img.dataset.source = 'copy';
    const token = ++this.loadToken;
    this.natural = { w: 0, h: 0 };
    this.img.onload = () => {
      if (token !== this.loadToken || this.img.dataset.source !== 'copy') return;
      this.natural = { w: this.img.naturalWidth, h: this.img.naturalHeight };
      this.fit();
    };
    this.img.src = m.thumb;
    this.setNote(m.pending ? viewerWords.pending : viewerWords.loading);
    if (!m.pending) void this.loadOriginal(m, token);
  }

  /** loadOriginal fetches the moment (for its original, which a list read
   * earlier may not have had yet) and swaps the original in once loaded. */
  private async loadOriginal(m: Moment, token: number): Promise<void> {
    let fresh = m;
    try {
      fresh = await backend.moments.get(m.id);
    } catch {
      // Offline: the small copy stays.
    }
    if (token !== this.loadToken) return;
    const o = fresh.original;
    if (!o) {
      this.setNote(fullPhotoWords(fresh.full_photo).viewer);
      return;
    }
    if (!drawable.has(o.content_type)) {
      this.setNote(viewerWords.cantShow);
      return;
    }
    const full = new Image();
    full.decoding = 'async';
    full.src = o.url;
    try {
      await full.decode();
    } catch {
      if (token === this.loadToken) this.setNote(viewerWords.failed);
      return;
    }
    if (token !== this.loadToken) return;
    // Keep what is seen where it is: the same size on screen.
    const before = this.natural.w;
    const ratio = before > 0 ? before / full.naturalWidth : 1;
    this.img.dataset.source = 'original';
    this.img.src = full.src;
    this.natural = { w: full.naturalWidth, h: full.naturalHeight };
    this.img.style.width = `${this.natural.w}px`;
    this.img.style.height = `${this.natural.h}px`;
    if (this.fitted || before === 0) this.fit();
    else this.apply(this.scale * ratio, this.x, this.y);
    this.setNote('');
  }

  private setNote(t: string): void {
    this.note.textContent = t;
    this.note.hidden = t === '';
  }

  /** the image's size on screen at scale 1, after rotation */
  private turned(): { w: number; h: number } {
    return this.rot % 2 === 0 ? this.natural : { w: this.natural.h, h: this.natural.w };
  }

  private fit(): void {
    const { w, h: ht } = this.turned();
    const sw = this.stage.clientWidth;
    const sh = this.stage.clientHeight;
    if (!w || !ht || !sw || !sh) return;
    // As large as the window allows, a small copy included.
    this.apply(Math.min(sw / w, sh / ht, MAX), 0, 0);
    this.fitted = true;
  }

  private actual(at?: { x: number; y: number }): void {
    this.zoomTo(1, at);
  }

  private rotate(): void {
    this.rot = (this.rot + 1) % 4;
    if (this.fitted) this.fit();
    else this.apply(this.scale, this.x, this.y);
  }

  private zoomBy(f: number, at?: { x: number; y: number }): void {
    this.zoomTo(this.scale * f, at);
  }

  /** zoomTo sets the scale keeping the point at (stage coordinates from
   * the centre) where it is; the centre when none. */
  private zoomTo(s: number, at = { x: 0, y: 0 }): void {
    const ns = Math.max(MIN, Math.min(MAX, s));
    const k = ns / this.scale;
    this.apply(ns, at.x - (at.x - this.x) * k, at.y - (at.y - this.y) * k);
    this.fitted = false;
  }

  private apply(s: number, x: number, y: number): void {
    this.scale = s;
    // Keep some of the photo in view.
    const { w, h: ht } = this.turned();
    const limX = Math.max(0, (w * s) / 2 + this.stage.clientWidth / 2 - 60);
    const limY = Math.max(0, (ht * s) / 2 + this.stage.clientHeight / 2 - 60);
    this.x = Math.max(-limX, Math.min(limX, x));
    this.y = Math.max(-limY, Math.min(limY, y));
    this.img.style.width = `${this.natural.w}px`;
    this.img.style.height = `${this.natural.h}px`;
    this.img.style.transform = `translate(-50%, -50%) translate(${this.x}px, ${this.y}px) rotate(${this.rot * 90}deg) scale(${s})`;
    this.img.dataset.scale = s.toFixed(4);
    this.img.dataset.x = this.x.toFixed(1);
    this.img.dataset.y = this.y.toFixed(1);
    this.img.dataset.rot = String(this.rot * 90);
    this.zoomLabel.textContent = `${Math.round(s * 100)}%`;
    this.stage.classList.toggle('zoomed', s > this.fitScale() + 1e-6);
  }

  private fitScale(): number {
    const { w, h: ht } = this.turned();
    if (!w || !ht) return 1;
    return Math.min(this.stage.clientWidth / w, this.stage.clientHeight / ht);
  }

  /** point is an event's position relative to the stage's centre. */
  private point(e: { clientX: number; clientY: number }): { x: number; y: number } {
    const r = this.stage.getBoundingClientRect();
    return { x: e.clientX - r.left - r.width / 2, y: e.clientY - r.top - r.height / 2 };
  }

  private wheel(e: WheelEvent): void {
    e.preventDefault();
    // A trackpad pinch arrives as a wheel event with ctrlKey, in small steps.
    const k = e.ctrlKey ? 0.01 : 0.0025;
    const dy = e.deltaMode === 1 ? e.deltaY * 33 : e.deltaY;
    this.zoomBy(Math.exp(-dy * k), this.point(e));
  }

  private down(e: PointerEvent): void {
    if ((e.target as HTMLElement).closest('button')) return;
    try {
      this.stage.setPointerCapture(e.pointerId);
    } catch {
      // A pointer the browser no longer knows: moves still reach the stage.
    }
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()] as [{ x: number; y: number }, { x: number; y: number }];
      const c = this.point({ clientX: (a.x + b.x) / 2, clientY: (a.y + b.y) / 2 });
      this.pinch = { d: Math.hypot(a.x - b.x, a.y - b.y), scale: this.scale, cx: c.x, cy: c.y };
      this.drag = null;
    } else if (this.pointers.size === 1) {
      this.drag = { x: e.clientX, y: e.clientY, ox: this.x, oy: this.y };
      this.stage.classList.add('dragging');
    }
  }

  private move(e: PointerEvent): void {
    if (!this.pointers.has(e.pointerId)) return;
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (this.pinch && this.pointers.size >= 2) {
      const [a, b] = [...this.pointers.values()] as [{ x: number; y: number }, { x: number; y: number }];
      const d = Math.hypot(a.x - b.x, a.y - b.y);
      if (this.pinch.d > 0) this.zoomTo(this.pinch.scale * (d / this.pinch.d), { x: this.pinch.cx, y: this.pinch.cy });
    } else if (this.drag) {
      this.apply(this.scale, this.drag.ox + e.clientX - this.drag.x, this.drag.oy + e.clientY - this.drag.y);
      this.fitted = false;
    }
  }

  private up(e: PointerEvent): void {
    this.pointers.delete(e.pointerId);
    if (this.pointers.size < 2) this.pinch = null;
    if (this.pointers.size === 0) {
      this.drag = null;
      this.stage.classList.remove('dragging');
    }
  }

  private key(e: KeyboardEvent): void {
    if ((e.target as HTMLElement).tagName === 'BUTTON' && (e.key === 'Enter' || e.key === ' ')) return;
    const pan = 80;
    switch (e.key) {
      case 'ArrowLeft':
        if (e.shiftKey) this.apply(this.scale, this.x + pan, this.y);
        else this.step(-1);
        break;
      case 'ArrowRight':
        if (e.shiftKey) this.apply(this.scale, this.x - pan, this.y);
        else this.step(1);
        break;
      case 'ArrowUp':
        this.apply(this.scale, this.x, this.y + pan);
        break;
      case 'ArrowDown':
        this.apply(this.scale, this.x, this.y - pan);
        break;
      case '+':
      case '=':
        this.zoomBy(1.25);
        break;
      case '-':
      case '_':
        this.zoomBy(1 / 1.25);
        break;
      case '0':
        this.fit();
        break;
      case '1':
        this.actual();
        break;
      case 'r':
      case 'R':
        this.rotate();
        break;
      default:
        return;
    }
    e.preventDefault();
  }
}

let single: Viewer | null = null;

/** viewPhotos opens the viewer on list[index]. */
export function viewPhotos(req: ViewRequest): void {
  single ??= new Viewer();
  single.open(req);
}
