// The UI's words: whole-word snapping of a selection, what a card or tile
// says of a moment's readings, and failed readings in plain sentences.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wordRange, preview, readingError, latest, firstLines, parkedAdvice, problem, tallyWords, outboxLine } from '../src/words.js';

const text = 'A bright afternoon in the garden: a path leads to a red door, and someone left a blue cup on the step.';
const snap = (from: string, to: string) => {
  const s = text.indexOf(from);
  const e = text.indexOf(to) + to.length;
  const [a, b] = wordRange(text, s, e);
  return text.slice(a, b);
};

test('a selection snaps to whole words', () => {
  assert.equal(snap('ed do', 'ed do'), 'red door');
  assert.equal(snap('d door, and someone left a blue cup on the st', 'st'), 'red door, and someone left a blue cup on the step');
  assert.equal(snap(' red', 'door, '), 'red door');
  assert.equal(snap('garden:', 'garden:'), 'garden');
  assert.deepEqual(wordRange(text, 5, 5), [5, 5]);
  const [a0, b0] = wordRange('  , ', 0, 4);
  assert.equal(a0, b0, 'nothing but spaces and commas keeps nothing');
  assert.equal(((t: string) => { const [a, b] = wordRange(t, 3, 8); return t.slice(a, b); })("it's grand-dad's"), "it's grand-dad's");
});

const r = (status: string, text = '', mode = 'practical', error = '') => ({ status, text, mode, error });

test('a card says the latest reading, or what Pippa is doing', () => {
  assert.deepEqual(preview({ kind: 'photo', pending: true, readings: [] }).state, 'pending');
  assert.equal(preview({ kind: 'photo', pending: false, readings: [r('queued')] }).state, 'waiting');
  assert.equal(preview({ kind: 'photo', pending: false, readings: [r('running')] }).state, 'working');
  assert.deepEqual(preview({ kind: 'photo', pending: false, readings: [r('finished', 'One'), r('running', '', 'careful')] }), { state: 'reading', text: 'One' });
  assert.equal(preview({ kind: 'photo', pending: false, readings: [r('failed', '', 'practical', 'x')] }).state, 'failed');
  assert.equal(latest([r('finished', 'old'), r('finished', 'new', 'careful'), r('failed')])?.text, 'new');
});

test('a failed reading is a sentence without addresses; the raw error is the detail', () => {
  const raw = 'Pippa\'s seat "pippa" (http://127.0.0.1:9/v1) did not answer after 5 attempts: dial tcp 127.0.0.1:9: connect: connection refused; check that the model server is running and reachable, then ask again';
  const e = readingError(raw);
  assert.doesNotMatch(e.sentence, /127\.0\.0\.1|seat|dial/);
  assert.match(e.sentence, /Try again/);
  assert.equal(e.detail, raw);
  assert.match(readingError('Pippa\'s seat "pippa" (http://x) refused the request: 400').sentence, /Settings/);
});

test('a parked photo too large for the engine: saving is the action that can work', () => {
  assert.equal(parkedAdvice('media_too_large').main, 'save');
  assert.equal(parkedAdvice('something_else').main, 'retry');
});

test('first lines stop at a word', () => {
  assert.equal(firstLines('short'), 'short');
  const f = firstLines(text, 40);
  assert.ok(f.endsWith('…') && f.length <= 41, f);
  assert.ok(text.startsWith(f.slice(0, -1)), f);
});

test('an engine error in plain words, the engine’s own behind Details', () => {
  assert.match(problem('bad_caption', 'the caption is 70000 bytes; at most 65536 bytes').sentence, /too long/);
  assert.equal(problem('no_phrases', 'no phrase kept').detail, '');
  const x = problem('internal', 'database is locked');
  assert.doesNotMatch(x.sentence, /database/);
  assert.equal(x.detail, 'database is locked');
});

const t = (photos: number, notes: number, changes: number) => ({ photos, notes, changes });

test('what waits is named for what it is: photos, notes, changes', () => {
  assert.equal(tallyWords(t(0, 0, 0)), '');
  assert.equal(tallyWords(t(2, 0, 0)), '2 photos');
  assert.equal(tallyWords(t(0, 0, 1)), '1 change');
  assert.equal(tallyWords(t(0, 1, 0)), '1 note');
  assert.equal(tallyWords(t(2, 0, 1)), '2 photos and 1 change');
  assert.equal(tallyWords(t(1, 2, 3)), '1 photo, 2 notes and 3 changes');
});

test('the banner, the status bar and its “needs you” say what waits, never a photo that is not there', () => {
  const none = t(0, 0, 0);
  assert.deepEqual(outboxLine(none, none), {
    banner: 'Anything you add waits safely on this computer and is sent on its own when it is back.',
    waiting: 'Everything sent',
    parked: '',
  });
  const change = outboxLine(t(0, 0, 1), none);
  assert.equal(change.banner, '1 change is waiting safely on this computer and will be sent on its own when it is back.');
  assert.equal(change.waiting, '1 change waiting to be sent');
  assert.equal(outboxLine(t(2, 0, 0), none).banner, '2 photos are waiting safely on this computer and will be sent on their own when it is back.');
  assert.equal(outboxLine(t(2, 0, 1), none).banner, '2 photos and 1 change are waiting safely on this computer and will be sent on their own when it is back.');
  assert.equal(outboxLine(t(1, 1, 0), none).waiting, '1 photo and 1 note waiting to be sent');
  assert.equal(outboxLine(none, t(0, 0, 1)).parked, '1 change needs you');
  assert.equal(outboxLine(none, t(1, 0, 1)).parked, '1 photo and 1 change need you');
  for (const l of [outboxLine(t(0, 2, 3), t(0, 1, 1))]) assert.doesNotMatch(`${l.banner} ${l.waiting} ${l.parked}`, /photo/);
});
