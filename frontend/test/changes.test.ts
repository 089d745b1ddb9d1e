// The words of Dad's changes on their way (issue 20, one vocabulary): the
// Go side sends what a change waits for (codes.ts's waitsFor), a write's
// kind and data, and the engine's code of a write it refused; every
// sentence is made in words.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitingWords, writeWhat, writeRefused, writeMain, when } from '../src/words.js';
import { waitsFor, writeKind, engineError, appError } from '../src/codes.js';

/** forDad: a sentence Dad can read: words, no code, no address. */
function forDad(s: string, what: string): void {
  assert.ok(s.length > 15, `${what}: "${s}"`);
  assert.doesNotMatch(s, /\b[a-z]+_[a-z_]+\b/, `${what} shows a code: "${s}"`);
  assert.doesNotMatch(s, /https?:|127\.0\.0\.1|\b[45]\d\d\b/, `${what} shows an address or a status: "${s}"`);
}

test('a change not sent yet says where it is and what it waits for, one sentence for each', () => {
  // The words the browser tests and Dad read (they were app/writes.go's).
  assert.equal(waitingWords(waitsFor.family), 'Saved on this computer; Spark will send it when the family engine is back.');
  assert.equal(waitingWords(waitsFor.local), 'Saved on this computer; Spark will send it to its engine in a moment.');
  assert.equal(waitingWords(waitsFor.sending), 'Saved on this computer; the family engine answers, and Spark is sending it now.');
  assert.doesNotMatch(waitingWords(waitsFor.sending), /is back/, 'not “when it is back” while it answers');
  // Refused: the Outbox's own words for what he can do there.
  assert.equal(waitingWords(waitsFor.parked), 'This change was turned down where your moments are kept. Open the Outbox to send it again or remove it.');
  assert.equal(waitingWords(''), '', 'nothing waits: nothing said');
  for (const code of Object.values(waitsFor)) forDad(waitingWords(code), code);
  assert.equal(new Set(Object.values(waitsFor).map(waitingWords)).size, Object.values(waitsFor).length, 'each its own words');
  // A newer Spark's code: still says it is safe here.
  assert.match(waitingWords('satellite'), /^Saved on this computer/);
});

test('the Outbox names each change from its kind and its data', () => {
  const w = (kind: string, text = '', taken_at = '') => writeWhat({ kind, text, taken_at });
  assert.equal(w('note', 'call the pharmacy'), 'Note “call the pharmacy”');
  assert.equal(w('caption', 'letter from the council'), 'Caption “letter from the council”');
  assert.equal(w('keep', 'red door'), 'Keep the phrase “red door”');
  assert.equal(w('unkeep', 'red door'), 'Remove the phrase “red door”');
  assert.equal(w('delete'), 'Delete a moment');
  assert.equal(w('careful'), 'Ask for a careful reading');
  assert.equal(w('again'), 'Ask Pippa again');
  assert.equal(w('recall'), 'Quick recall');
  // The date as the rest of the window writes a date, in its locale.
  const taken = w('taken_at', '', '2024-05-01T09:30:00Z');
  assert.equal(taken, `Date taken ${when('2024-05-01T09:30:00Z')}`);
  assert.match(taken, /2024/);
  assert.doesNotMatch(taken, /T09:30|Z$/, `no RFC 3339 on screen: ${taken}`);
  assert.equal(w('taken_at', '', 'not a date'), 'Change the date taken', 'a date that does not read is not shown');
  // A kind of a newer Spark: a change, never its code.
  assert.equal(w('repaint'), 'A change');
  // Every kind the Go side sends has its own words.
  const said = Object.values(writeKind).map((k) => w(k, 'x', '2024-05-01T09:30:00Z'));
  assert.equal(new Set(said).size, Object.values(writeKind).length, said.join(' | '));
  assert.ok(!said.includes('A change'), said.join(' | '));
});

test('a change the engine turned down: which engine, why (from its code), and what Dad can do', () => {
  const family = writeRefused(engineError.unknownMoment, 'remote');
  assert.match(family, /^The family engine turned this down, so it was not sent\./);
  assert.match(family, /no longer there/);
  assert.match(writeRefused(engineError.unknownMoment, 'local'), /^Spark’s engine on this computer turned this down/);
  assert.match(writeRefused(engineError.notFound, 'remote'), /no longer there/);
  assert.match(writeRefused(engineError.momentDeleted, 'remote'), /no longer there/);
  assert.match(writeRefused(engineError.captionTooLong, 'remote'), /too long/);
  assert.match(writeRefused(engineError.forbidden, 'remote'), /another family member/);
  assert.match(writeRefused(appError.failed, 'remote'), /Send it again once that is sorted out, or remove it\.$/);
  for (const code of [...Object.values(engineError), ...Object.values(appError)]) {
    forDad(writeRefused(code, 'remote'), code);
    assert.match(writeRefused(code, 'remote'), /turned this down/, code);
  }
});

test('a change whose moment is gone offers removing it first; any other, sending it again', () => {
  assert.equal(writeMain('unknown_moment'), 'remove');
  assert.equal(writeMain('not_found'), 'remove');
  assert.equal(writeMain('unavailable'), 'retry');
  assert.equal(writeMain(''), 'retry');
});
