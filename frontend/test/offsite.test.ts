// The off-site copy's words (words.ts): the status line of the issue's
// model, Dad's words for each problem with what to do, the status bar's
// line only when the copy is far behind or failing for minutes, and the
// test of a place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { offsiteStatusWords, offsiteBarWords, offsiteAdvice, offsiteTestWords, recoveryWords, ago, dayPart, failingWait } from '../src/words.js';
import { backupProblem, backupState, offsiteKind, offsiteTest } from '../src/codes.js';

/** A Sunday at 11:00, this computer's time. */
const now = new Date(2026, 11, 6, 11, 0).getTime();
const at = (minutesBefore: number) => new Date(now - minutesBefore * 60_000).toISOString();
const GB = 1024 ** 3;

function forDad(s: string, what: string): void {
  assert.ok(s.length > 15, `${what}: "${s}"`);
  assert.doesNotMatch(s, /\b[a-z]+_[a-z_]+\b|s3:\/\/|file:\/\/|\berr\b/, `${what} shows a code or an address: "${s}"`);
}

test('a current copy checked this morning reads as the issue’s model', () => {
  const h = { state: backupState.current, shipped_at: at(2), check: { at: at(4 * 60), ok: true, moments: 14302, bytes: 41 * GB } };
  assert.deepEqual(offsiteStatusWords(h, offsiteKind.folder, now), {
    line: 'Off-site copy checked this morning: 14,302 moments, 41 GB, last shipped 2 minutes ago.',
    advice: '',
    trouble: false,
  });
  assert.equal(offsiteStatusWords({ state: backupState.current, shipped_at: at(0.2) }, offsiteKind.folder, now).line, 'Off-site copy up to date, last shipped just now.');
  assert.equal(offsiteStatusWords(null, offsiteKind.folder, now).line, '');
  assert.match(offsiteStatusWords({ state: backupState.catchingUp }, offsiteKind.folder, now).line, /first copy/);
  // Sending what is new, or everything again after the copy was emptied.
  assert.equal(offsiteStatusWords({ state: backupState.catchingUp, shipped_at: at(5) }, offsiteKind.folder, now).line, 'Off-site copy: Spark is bringing it up to date (it was last complete 5 minutes ago).');
});

test('when: ago and the part of the day', () => {
  assert.equal(ago(at(1), now), 'a minute ago');
  assert.equal(ago(at(90), now), '2 hours ago');
  assert.equal(ago(at(3 * 24 * 60), now), '3 days ago');
  assert.equal(dayPart(at(5 * 60), now), 'this morning');
  assert.equal(dayPart(new Date(2026, 11, 5, 20, 0).toISOString(), now), 'yesterday');
  assert.equal(dayPart(new Date(2026, 11, 2, 20, 0).toISOString(), now), 'on Wednesday');
  assert.equal(dayPart(new Date(2026, 10, 20, 9, 0).toISOString(), now), 'on November 20');
});

test('every problem of a copy has its own words and what to do, for a disk, a provider and the family engine', () => {
  for (const kind of [offsiteKind.folder, offsiteKind.provider, '']) {
    const seen = new Map<string, string>();
    for (const code of Object.values(backupProblem)) {
      const s = offsiteAdvice(code, kind);
      forDad(s, `${kind || 'family'}/${code}`);
      assert.ok(!seen.has(s), `${code} says what ${seen.get(s)} says`);
      seen.set(s, code);
      if (!kind) assert.match(s, /Whoever runs the family engine/, code);
    }
  }
  assert.match(offsiteAdvice(backupProblem.unreachable, offsiteKind.folder), /Plug the disk back in/);
  assert.match(offsiteAdvice(backupProblem.denied, offsiteKind.provider), /key id and the secret/);
  assert.match(offsiteAdvice(backupProblem.gone, offsiteKind.provider), /emptied.*sending everything again/);
  assert.match(offsiteAdvice(backupProblem.full, offsiteKind.folder), /disk is full\. Free some space/);
  assert.match(offsiteAdvice(backupProblem.damaged, offsiteKind.folder), /damaged\. Choose a new place/);
  const failing = offsiteStatusWords({ state: backupState.failing, problem: backupProblem.unreachable, shipped_at: at(30) }, offsiteKind.folder, now);
  assert.equal(failing.line, 'The off-site copy can’t be updated: last shipped 30 minutes ago.');
  assert.ok(failing.trouble);
  const check = offsiteStatusWords({ state: backupState.checkFailed, problem: backupProblem.damaged, check: { at: at(60), ok: false, moments: 0, bytes: 0 } }, offsiteKind.provider, now);
  assert.equal(check.line, 'The check of the off-site copy this morning found a problem.');
});

test('the status bar speaks only when the copy is more than a day behind, failing for minutes, or its check failed', () => {
  const failingFor = (ms: number) => new Date(now - ms).toISOString();
  assert.equal(offsiteBarWords(undefined, '', now), '');
  assert.equal(offsiteBarWords({ state: backupState.current }, '', now), '');
  assert.equal(offsiteBarWords({ state: backupState.catchingUp, behind_since: at(23 * 60) }, '', now), '', 'less than a day behind');
  assert.equal(offsiteBarWords({ state: backupState.catchingUp, behind_since: at(25 * 60) }, '', now), 'The off-site copy is a day behind');
  assert.equal(offsiteBarWords({ state: backupState.failing, behind_since: at(3 * 24 * 60 + 5) }, failingFor(60_000), now), 'The off-site copy is 3 days behind');
  assert.equal(offsiteBarWords({ state: backupState.failing, problem: backupProblem.unreachable }, failingFor(60_000), now), '', 'a disk unplugged a minute ago');
  assert.equal(offsiteBarWords({ state: backupState.failing, problem: backupProblem.unreachable }, failingFor(failingWait + 1000), now), 'The off-site copy isn’t being updated');
  assert.equal(offsiteBarWords({ state: backupState.checkFailed, problem: backupProblem.damaged }, '', now), 'The check of the off-site copy found a problem');
});

test('every result of a test of a place has Dad’s words', () => {
  const seen = new Map<string, string>();
  for (const code of Object.values(offsiteTest)) {
    const s = offsiteTestWords(code, offsiteKind.folder);
    forDad(s, code);
    assert.ok(!seen.has(s), `${code} says what ${seen.get(s)} says`);
    seen.set(s, code);
  }
  for (const code of Object.values(backupProblem)) for (const kind of Object.values(offsiteKind)) forDad(offsiteTestWords(code, kind), `${kind}/${code}`);
  assert.match(offsiteTestWords(backupProblem.denied, offsiteKind.provider), /refused the key/);
  assert.match(offsiteTestWords(offsiteTest.noPlace, offsiteKind.folder), /plug the disk in/);
});

test('the recovery text names the place and the provider’s key id, never a secret', () => {
  const r = recoveryWords({ place: 's3://family-photos/spark', address: 'https://s3.eu-central-003.backblazeb2.com', key_id: '003abc', key: '' }, now);
  assert.match(r, /Where the copy is: s3:\/\/family-photos\/spark/);
  assert.match(r, /Key id: 003abc/);
  assert.match(r, /spark-engine restore --from s3:\/\/family-photos\/spark --backup-endpoint https:\/\/s3\.eu-central-003\.backblazeb2\.com --data NEW_EMPTY_FOLDER/);
  assert.match(r, /not locked with a key/);
  const key = 'AGE-SECRET-KEY-1QQQQRRRRSSSSTT';
  const disk = recoveryWords({ place: 'file:///media/dad/Dad’s disk/Spark copy', address: '', key_id: '', key }, now);
  assert.match(disk, /The key \(it is one line\):\nAGE-SECRET-KEY-1QQQQRRRRSSSSTT\n/);
  assert.match(disk, /AGE-SECRET-KEY-1 QQQQ RRRR SSSS TT/);
  assert.match(disk, /restore --from 'file:\/\/\/media\/dad\/Dad’s disk\/Spark copy' --data NEW_EMPTY_FOLDER --key spark-key.txt/, 'a place with spaces is one word of the command; the key goes with --key');
  assert.match(disk, /save this page there as a file named spark-key.txt/);
});
