// The timeline's order and headings: moments by the date their photo was
// taken (or, for a moment without one, when it was added) or by when they
// were added, under "Today", "This week" and month headings. Pure
// functions (no DOM), so the unit tests run them in Node.
import { clockTime, timelineWords } from './words.js';

export type Order = 'taken' | 'added';

/** The fields of a moment (view.Moment) the timeline looks at. */
export interface Dated {
  id: string;
  kind: string;
  taken_at: string;
  created_at: string;
}

/** dateOf is the instant a moment is placed at, and whether that is when
 * it was added because it has no date taken. */
export function dateOf(m: Dated, order: Order): { t: number; added: boolean } {
  const taken = order === 'taken' && m.taken_at ? Date.parse(m.taken_at) : NaN;
  if (!Number.isNaN(taken)) return { t: taken, added: false };
  const c = Date.parse(m.created_at);
  // A capture still on this computer has its id's time (a ULID) at least.
  return { t: Number.isNaN(c) ? 0 : c, added: true };
}

/** sorted returns the moments newest first in the given order; ties (and
 * the order by date added) fall back to the id, which is the capture time. */
export function sorted<M extends Dated>(ms: M[], order: Order): M[] {
  if (order === 'added') return [...ms].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const keyed = ms.map((m) => ({ m, t: dateOf(m, order).t }));
  keyed.sort((a, b) => b.t - a.t || (a.m.id < b.m.id ? 1 : a.m.id > b.m.id ? -1 : 0));
  return keyed.map((k) => k.m);
}

const DAY = 86_400_000;

function startOfDay(t: number): number {
  const d = new Date(t);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** Group is a heading of the timeline. */
export interface Group {
  key: string;
  label: string;
}

const monthFmt = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric' });

/** groupOf is the heading a time goes under: Today, This week (the six
 * days before today), or its month. */
export function groupOf(t: number, now = Date.now()): Group {
  const today = startOfDay(now);
  if (t >= today) return { key: 'today', label: timelineWords.today };
  if (t >= today - 6 * DAY) return { key: 'week', label: timelineWords.thisWeek };
  const d = new Date(t);
  return { key: `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`, label: monthFmt.format(d) };
}

/** Section is a heading and the moments under it, in order. */
export interface Section<M> {
  group: Group;
  items: M[];
}

/** sections groups moments (already sorted) under their headings. */
export function sections<M extends Dated>(ms: M[], order: Order, now = Date.now()): Section<M>[] {
  const out: Section<M>[] = [];
  for (const m of ms) {
    const g = groupOf(dateOf(m, order).t, now);
    const last = out.at(-1);
    if (last && last.group.key === g.key) last.items.push(m);
    else out.push({ group: g, items: [m] });
  }
  return out;
}

const shortFmt = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric' });

/** tileDate is the short date a tile shows: "Today, 11:00" for today, the
 * day otherwise; "Added …" when it is when the moment was added because
 * the photo has no date of its own. It begins with a capital either way. */
export function tileDate(m: Dated, order: Order, now = Date.now()): string {
  const { t, added } = dateOf(m, order);
  if (!t) return '';
  const today = t >= startOfDay(now);
  if (order === 'taken' && added && m.kind === 'photo') {
    return today ? timelineWords.addedToday(clockTime.format(t)) : timelineWords.added(shortFmt.format(t));
  }
  return today ? timelineWords.todayAt(clockTime.format(t)) : shortFmt.format(t);
}
