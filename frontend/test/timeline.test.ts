// The timeline's order and headings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sorted, sections, groupOf, tileDate, dateOf } from '../src/timeline.js';
import { when } from '../src/words.js';

const now = new Date(2026, 4, 20, 15, 0).getTime(); // 20 May 2026, 15:00 local
const iso = (y: number, mo: number, d: number, h = 12) => new Date(y, mo - 1, d, h).toISOString();
const m = (id: string, takenAt: string, createdAt: string, kind = 'photo') => ({ id, kind, taken_at: takenAt, created_at: createdAt });

test('headings: Today, This week, then months', () => {
  assert.equal(groupOf(new Date(2026, 4, 20, 0, 5).getTime(), now).label, 'Today');
  assert.equal(groupOf(new Date(2026, 4, 14, 9).getTime(), now).label, 'This week');
  assert.equal(groupOf(new Date(2026, 4, 13, 9).getTime(), now).key, '2026-05');
  assert.equal(groupOf(new Date(2015, 5, 10).getTime(), now).key, '2015-06');
});

test('by date taken, a moment without one goes by when it was added, and says so', () => {
  const ms = [m('03', iso(2015, 6, 10), iso(2026, 5, 20, 9)), m('02', '', iso(2026, 5, 20, 10)), m('01', iso(2021, 3, 2), iso(2026, 5, 19))];
  assert.deepEqual(sorted(ms, 'taken').map((x) => x.id), ['02', '01', '03']);
  assert.deepEqual(sorted(ms, 'added').map((x) => x.id), ['03', '02', '01']);
  assert.deepEqual(sections(sorted(ms, 'taken'), 'taken', now).map((s) => [s.group.key, s.items.length]), [['today', 1], ['2021-03', 1], ['2015-06', 1]]);
  assert.match(tileDate(ms[1]!, 'taken', now), /^Added today, /);
  assert.doesNotMatch(tileDate(ms[0]!, 'taken', now), /added/);
  assert.doesNotMatch(tileDate(m('n', '', iso(2026, 5, 20), 'note'), 'taken', now), /added/, 'a note is not "added"');
  assert.equal(dateOf(ms[0]!, 'added').added, true);
});

test('a tile\'s date begins with a capital, today or not', () => {
  const today = m('t', '', iso(2026, 5, 20, 11), 'note');
  assert.match(tileDate(today, 'added', now), /^Today, \d/);
  assert.match(tileDate(m('a', '', iso(2026, 5, 20, 11)), 'taken', now), /^Added today, \d/);
  assert.match(tileDate(m('b', '', iso(2026, 3, 2)), 'taken', now), /^Added [A-Z0-9]/);
  assert.match(tileDate(m('c', iso(2021, 3, 2), iso(2026, 5, 19)), 'taken', now), /^[A-Z0-9]/);
});

test('a tile says the time of day as the moment does: one way of writing it', () => {
  const at = iso(2026, 5, 20, 9); // 09:00 local: the hour that a two-digit format pads
  const said = tileDate(m('d', '', at), 'taken', now).replace('Added today, ', '');
  assert.ok(when(at).endsWith(said), `the tile says "${said}", the moment "${when(at)}"`);
});
