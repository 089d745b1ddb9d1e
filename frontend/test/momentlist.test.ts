// The timeline's data model (momentlist.ts): rows that sections share,
// pages read before an engine switch, and edits made here against pages
// asked for before them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MomentList, rowsOf, type PageOf } from '../src/momentlist.js';

type M = { id: string; kind: string; taken_at: string; created_at: string; pending: boolean; caption?: string };
const now = new Date(2026, 4, 20, 15, 0).getTime(); // 20 May 2026, 15:00 local
const iso = (y: number, mo: number, d: number) => new Date(y, mo - 1, d, 12).toISOString();
const m = (id: string, takenAt: string, caption = ''): M => ({ id, kind: 'photo', taken_at: takenAt, created_at: takenAt, pending: false, caption });

test('sparse months share a row; a month wider than what is left starts its own', () => {
  const view = [m('05', iso(2025, 5, 1)), m('04', iso(2025, 4, 1)), m('03', iso(2025, 3, 1)), m('02', iso(2025, 2, 1)), m('01', iso(2025, 2, 2))];
  const { rows, heading } = rowsOf(view, 'taken', 4, now);
  assert.deepEqual(rows.map((r) => [r.from, r.to, r.heads.map((h) => [h.key, h.col, h.span])]), [
    [0, 2, [['2025-05', 0, 1], ['2025-04', 1, 1], ['2025-03', 2, 1]]],
    [3, 4, [['2025-02', 0, 2]]],
  ]);
  assert.equal(heading.length, 5);
});

/** pages answers reads from a queue the test fills, one promise a read. */
function pages() {
  const waiting: ((p: PageOf<M>) => void)[] = [];
  const read = (_cursor: string, _n: number) => new Promise<PageOf<M>>((r) => waiting.push(r));
  return {
    read,
    /** answer answers the oldest read still waiting; answerLast the newest. */
    answer: (p: PageOf<M>) => waiting.shift()?.(p),
    answerLast: (p: PageOf<M>) => waiting.pop()?.(p),
  };
}

test('a page read before an engine switch is dropped, never merged into the new engine', async () => {
  const p = pages();
  let t = 0;
  const list = new MomentList<M>(p.read, () => list.sort('added'), () => {}, 200, () => ++t);
  const old = list.loadAll();
  list.switched();
  const fresh = list.loadAll();
  p.answer({ moments: [m('OLD', iso(2025, 1, 1))], next: '' });
  p.answer({ moments: [m('NEW', iso(2025, 1, 2))], next: '' });
  await Promise.all([old, fresh]);
  assert.deepEqual(list.view.map((x) => x.id), ['NEW']);
  assert.equal(list.ended, true);
});

test('an edit or a deletion made here wins over a page asked for before it', async () => {
  const p = pages();
  let t = 0;
  const list = new MomentList<M>(p.read, () => list.sort('added'), () => {}, 200, () => ++t);
  const first = list.loadAll();
  p.answer({ moments: [m('02', iso(2025, 1, 2)), m('01', iso(2025, 1, 1))], next: '' });
  await first;
  const again = list.refreshTop();
  assert.equal(list.replace({ ...m('02', iso(2025, 1, 2)), caption: 'edited' }), 0, 'same place: one tile redrawn');
  assert.equal(list.drop('01'), true);
  p.answer({ moments: [m('02', iso(2025, 1, 2)), m('01', iso(2025, 1, 1))], next: '' });
  await again;
  assert.deepEqual(list.view.map((x) => [x.id, x.caption]), [['02', 'edited']]);
});

test('a first page asked for before a newer one is answered after it: the older answer is dropped', async () => {
  // Seen in the browser test of an engine switch on a loaded machine: a
  // refresh asked before two photos were captured was answered after the
  // refresh that showed them, and took them off the screen until the next
  // change came.
  const p = pages();
  let t = 0;
  const list = new MomentList<M>(p.read, () => list.sort('added'), () => {}, 200, () => ++t);
  const first = list.loadAll();
  p.answer({ moments: [m('01', iso(2025, 1, 1))], next: '' });
  await first;
  const older = list.refreshTop();
  const newer = list.refreshTop();
  // The newer read is answered first: the two new moments are there.
  p.answerLast({ moments: [m('03', iso(2025, 1, 3)), m('02', iso(2025, 1, 2)), m('01', iso(2025, 1, 1))], next: '' });
  await newer;
  assert.deepEqual(list.view.map((x) => x.id), ['03', '02', '01']);
  // Then the older one, from before they were captured.
  p.answer({ moments: [m('01', iso(2025, 1, 1))], next: '' });
  await older;
  assert.deepEqual(list.view.map((x) => x.id), ['03', '02', '01'], 'the older answer takes nothing away');
});
