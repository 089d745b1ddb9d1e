// The timeline's data model: the list of moments Moments shows, read page
// by page from the engine Spark uses, merged with the edits and deletions
// made here, sorted in the chosen order and cut into rows of sections.
// No DOM, so the unit tests run it in Node; moments.ts is its view.

import { sections, sorted, type Dated, type Order } from './timeline.js';

/** The fields of a moment (view.Moment) the list looks at. */
export interface Listed extends Dated {
  pending: boolean;
}

/** PageOf is one page of moments as Moments.Page returns it. */
export interface PageOf<M> {
  moments: M[];
  next: string;
}

/** Head is a heading (Today, This week, a month) over the tiles of its
 * section that start a row: from column col, span columns wide. */
export type Head = { label: string; key: string; col: number; span: number };

/** Row is a line of tiles, from and to (indices in the view), at y; when
 * sections start in it, their headings stand in a strip above it.
 * Sections share a row, as in Photos, when a section fits whole in what is
 * left of the row before it: sparse months do not each take a row of
 * their own. */
export type Row = { y: number; from: number; to: number; heads: Head[] };

/** rowsOf cuts the moments (already in order) into rows of cols: each
 * section's moments in rows of cols, a section that fits whole in what is
 * left of the last row joining it there. heading is each moment's
 * heading, by its index in view. The rows' y is left 0 for the view. */
export function rowsOf<M extends Dated>(view: M[], order: Order, cols: number, now = Date.now()): { rows: Row[]; heading: string[] } {
  const rows: Row[] = [];
  const heading: string[] = [];
  let at = 0;
  for (const s of sections(view, order, now)) {
    const n = s.items.length;
    for (let i = 0; i < n; i++) heading.push(s.group.label);
    const last = rows.at(-1);
    const used = last ? last.to - last.from + 1 : cols;
    const head = { label: s.group.label, key: s.group.key };
    if (last && n <= cols - used) {
      last.heads.push({ ...head, col: used, span: n });
      last.to += n;
    } else {
      for (let i = 0; i < n; i += cols) {
        rows.push({ y: 0, from: at + i, to: at + Math.min(i + cols, n) - 1, heads: i === 0 ? [{ ...head, col: 0, span: Math.min(cols, n) }] : [] });
      }
    }
    at += n;
  }
  return { rows, heading };
}

/**
 * MomentList holds every moment of the engine Spark uses, read page by
 * page (the order by date taken needs them all). An edit or deletion made
 * here wins over a page asked for before it; a page read from the engine
 * before a switch is dropped, never merged into the new one's. changed is
 * called whenever the list changed and the view should draw it again.
 */
export class MomentList<M extends Listed> {
  private byID = new Map<string, M>();
  private local = new Map<string, { m: M | null; at: number }>();
  private list: M[] = [];
  private next = '';
  private loading = false;
  private done = false;
  /** engine counts the switches of engine. */
  private engine = 0;
  /** topAsked is when the first page last merged was asked for: an answer
   * asked for before it is older than what is shown, and would take away
   * moments that came since. */
  private topAsked = -Infinity;

  constructor(
    private readonly read: (cursor: string, n: number) => Promise<PageOf<M>>,
    private readonly changed: () => void,
    private readonly failed: (e: unknown) => void,
    private readonly pageSize: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** view is the list in its order, as sort last made it. */
  get view(): M[] {
    return this.list;
  }

  /** ended tells whether every page has been read. */
  get ended(): boolean {
    return this.done;
  }

  /** sort orders the list anew from the moments held. */
  sort(order: Order): void {
    this.list = sorted([...this.byID.values()], order);
  }

  /** switched forgets every moment: none of them are the new engine's. */
  switched(): void {
    this.engine++;
    this.byID.clear();
    this.local.clear();
    this.next = '';
    this.done = false;
    this.loading = false;
  }

  /** reload reads every page again (many moments changed at once). */
  reload(): void {
    if (this.loading) return;
    this.next = '';
    this.done = false;
    void this.loadAll();
  }

  /** refreshTop re-reads the first page and merges it: new moments come
   * in, delivered captures turn into the engine's moments. */
  async refreshTop(): Promise<void> {
    const asked = this.now();
    const engine = this.engine;
    let page;
    try {
      page = await this.read('', this.pageSize);
    } catch {
      return;
    }
    if (engine !== this.engine) return; // read before a switch
    if (asked < this.topAsked) return; // a newer first page is shown
    this.topAsked = asked;
    const fresh = this.fresher(page.moments, asked);
    const ids = new Set(fresh.map((m) => m.id));
    const oldestTop = fresh.filter((m) => !m.pending).at(-1)?.id ?? '';
    for (const [id, m] of this.byID) {
      // Gone from the first page: delivered (pending no more) or deleted.
      if (!ids.has(id) && (m.pending || (oldestTop !== '' && id > oldestTop))) this.byID.delete(id);
    }
    for (const m of fresh) this.byID.set(m.id, m);
    if (this.byID.size <= fresh.length) {
      this.next = page.next;
      this.done = page.next === '';
    }
    this.changed();
  }

  /** loadAll fetches every page, one after another, drawing as they come. */
  async loadAll(): Promise<void> {
    const engine = this.engine;
    while (!this.done && !this.loading && engine === this.engine) {
      this.loading = true;
      try {
        const asked = this.now();
        const page = await this.read(this.next, this.pageSize);
        // Switched meanwhile: the read of the new engine goes on alone.
        if (engine !== this.engine) return;
        for (const m of this.fresher(page.moments, asked)) this.byID.set(m.id, m);
        this.next = page.next;
        this.done = page.next === '';
        this.changed();
      } catch (e) {
        if (engine === this.engine) this.failed(e);
        return;
      } finally {
        if (engine === this.engine) this.loading = false;
      }
      // Let the window breathe between pages.
      await new Promise((r) => setTimeout(r, 0));
    }
  }

  /** fresher keeps edits and deletions made here while a page was on its
   * way: an answer asked for before them must not bring back the old. */
  private fresher(ms: M[], asked: number): M[] {
    return ms.flatMap((m) => {
      const l = this.local.get(m.id);
      if (!l || l.at < asked) return [m];
      return l.m ? [l.m] : [];
    });
  }

  /** replace takes an edit made here. It returns the moment's index in
   * the view when it keeps its place there (the view redraws one tile),
   * or -1 when the list must be sorted and drawn again. */
  replace(m: M): number {
    this.local.set(m.id, { m, at: this.now() });
    const old = this.byID.get(m.id);
    this.byID.set(m.id, m);
    const i = this.list.findIndex((x) => x.id === m.id);
    if (i >= 0 && old && old.taken_at === m.taken_at) {
      // The same place in the timeline.
      this.list[i] = m;
      return i;
    }
    return -1;
  }

  /** drop takes a deletion made here; it tells whether the list held it. */
  drop(id: string): boolean {
    this.local.set(id, { m: null, at: this.now() });
    return this.byID.delete(id);
  }

  /** has tells whether the list holds the moment. */
  has(id: string): boolean {
    return this.byID.has(id);
  }
}
