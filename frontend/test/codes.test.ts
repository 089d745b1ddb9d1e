// The words of the codes the Go side sends (codes.ts, generated from Go
// and checked against it by app/codes_test.go): every code has Dad's
// words, and no words come from the engine's own text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readingError, problem, syncProblemWords, connectionTestWords, cardRefused, warningWords } from '../src/words.js';
import { readFail, engineError, appError, syncStop, connectionTest, addressWarning } from '../src/codes.js';

const generic = problem({ code: 'no_such_code' }).sentence;
const fallback = readingError('');

/** forDad: a sentence Dad can read: words, no code, no address. */
function forDad(s: string, what: string): void {
  assert.ok(s.length > 15, `${what}: "${s}"`);
  assert.doesNotMatch(s, /\b[a-z]+_[a-z_]+\b/, `${what} shows a code: "${s}"`);
  assert.doesNotMatch(s, /127\.0\.0\.1:\d+\/v1\/chat|dial tcp|\bnil\b|\berr\b/, `${what} shows the engine's words: "${s}"`);
}

test('every reason a reading failed has its own words; an unknown or missing code reads as a failure to try again', () => {
  const seen = new Map<string, string>();
  for (const code of Object.values(readFail)) {
    const s = readingError(code);
    forDad(s, code);
    if (code === readFail.readingFailed) {
      assert.equal(s, fallback);
      continue;
    }
    assert.notEqual(s, fallback, `${code} has only the fallback's words`);
    assert.ok(!seen.has(s), `${code} says what ${seen.get(s)} says`);
    seen.set(s, code);
  }
  // A reading from an engine older than the codes, or a newer engine's code.
  assert.match(readingError(''), /Try again/);
  assert.equal(readingError('pippa_on_holiday'), fallback);
});

test('every code of the app, of the sync and of a connection test has Dad’s words', () => {
  for (const code of Object.values(appError)) {
    const e = problem({ code, name: 'IMG_0001.jpg', min: 0.1, max: 10000 });
    forDad(e.sentence, code);
    if (code !== appError.failed) assert.notEqual(e.sentence, generic, `${code} has only the generic words`);
  }
  assert.match(problem({ code: appError.badCacheSize, min: 0.1, max: 10000 }).sentence, /between 0\.1 and 10000 GB/);
  assert.match(problem({ code: appError.originalDelivered, name: 'IMG_0001.jpg' }).sentence, /IMG_0001\.jpg/);
  assert.equal(problem({ code: appError.noPhotos, name: '/home/dad/Pictures/Empty' }).sentence, 'There are no photos (JPEG, PNG, WebP or HEIC) in /home/dad/Pictures/Empty.');
  assert.equal(problem({ code: appError.notPicture, name: 'text/plain' }).sentence, 'The clipboard holds text/plain, which Spark can’t keep. Copy a JPEG, PNG, WebP or HEIC picture.');
  assert.equal(problem({ code: appError.pasteUnreadable }).sentence, 'The pasted picture could not be read.');
  assert.equal(problem({ code: appError.notWaiting }).sentence, 'This is no longer waiting: it was sent or removed.');
  // A card of Add photos names its file already: its words do not.
  for (const code of [appError.emptyFile, appError.notPhoto, appError.damagedPhoto, appError.photoTooLarge, appError.diskFull, appError.noFile, appError.notAllowed, appError.notAdded]) {
    const e = problem({ code, name: 'IMG_0001.jpg', detail: '/home/dad/IMG_0001.jpg: unsupported format: a PDF document' });
    assert.doesNotMatch(e.sentence, /IMG_0001/, code);
    assert.match(e.detail, /unsupported format/, `${code} keeps the reason behind Details`);
  }
  // A write the engine refused is kept in the Outbox: the words say so,
  // after why it was refused.
  const parked = problem({ code: engineError.captionTooLong, detail: 'the caption is 70 KiB long', parked: true });
  assert.match(parked.sentence, /^This is too long to keep\..* It is kept in the Outbox, where you can try again or discard it\.$/);
  assert.match(problem({ code: engineError.unknownMoment, parked: true }).sentence, /kept in the Outbox/);
  assert.doesNotMatch(problem({ code: engineError.captionTooLong }).sentence, /Outbox/);
  for (const code of Object.values(engineError)) forDad(problem({ code, detail: 'the engine: boom' }).sentence, code);
  for (const code of Object.values(syncStop)) forDad(syncProblemWords({ state: 'problem', problem: code }), code);
  assert.equal(new Set(Object.values(syncStop).map((code) => syncProblemWords({ state: 'problem', problem: code }))).size, Object.values(syncStop).length);
  for (const code of [appError.offline, appError.unauthorized]) forDad(syncProblemWords({ state: 'offline', problem: code }), code);
  assert.equal(syncProblemWords({ state: 'uptodate', problem: '' }), '');
  for (const code of Object.values(connectionTest)) {
    forDad(connectionTestWords({ code, version: '1.2.3', address: 'http://192.168.1.20:8787' }), code);
  }
  assert.match(connectionTestWords({ code: connectionTest.noAnswer, version: '', address: 'http://192.168.1.20:8787' }), /192\.168\.1\.20:8787/);
  for (const code of Object.values(addressWarning)) forDad(warningWords(code), code);
  assert.equal(
    warningWords(addressWarning.plainHttp),
    'This address starts with http://, so the token, and your moments, would cross the network unprotected: someone else on the same network could copy them. Ask whoever runs the family engine for an address that starts with https://.',
  );
  assert.equal(warningWords(''), '');
  assert.match(cardRefused(engineError.mediaTooLarge), /too large/);
  assert.doesNotMatch(cardRefused('unknown_moment'), /too large/);
});

test('no words come from the engine’s text: the sentence is the same whatever the detail says', () => {
  const a = 'Pippa\'s seat "pippa" (http://127.0.0.1:9/v1) did not answer after 5 attempts: connection refused';
  const b = 'the caption is 70000 bytes; at most 65536 bytes (too long, media_too_large, 401)';
  for (const code of [...Object.values(appError), ...Object.values(engineError)]) {
    assert.equal(problem({ code, detail: a }).sentence, problem({ code, detail: b }).sentence, code);
  }
  for (const code of Object.values(connectionTest)) {
    assert.equal(connectionTestWords({ code, version: '1', address: 'x', detail: a }), connectionTestWords({ code, version: '1', address: 'x', detail: b }), code);
  }
  // No function of words.ts takes an engine's error text: none has a
  // parameter named for one, and none matches a pattern against one.
  const src = readFileSync(new URL('../../../src/words.ts', import.meta.url), 'utf8');
  for (const m of src.matchAll(/export function (\w+)(?:<[^>]*>)?\(([^)]*)\)/g)) {
    assert.doesNotMatch(m[2] ?? '', /\b(raw|message|reason|error|errorText|detail)\s*:/, `${m[1]}(${m[2]}) takes an engine's text`);
  }
  assert.doesNotMatch(src, /\.test\((raw|message|reason|e\.message|e\.detail|detail)\)/);
});
