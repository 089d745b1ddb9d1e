// Checks the UI's ULID module against the reference, oklog/ulid, through
// e2e/cmd/ulidcheck (a Go program): each side decodes what the other minted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { Monotonic, decodeTime, encodeTime, isULID, ulid } from '../src/ulid.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

interface Report {
  decoded: { id: string; ms: number; error?: string }[];
  increasing: boolean;
  minted: string[];
}

function goCheck(ms: number, n: number, ids: string[]): Report {
  const out = execFileSync('go', ['run', './e2e/cmd/ulidcheck', '-ms', String(ms), '-n', String(n), ...ids], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return JSON.parse(out) as Report;
}

test('ULIDs minted in TypeScript decode in Go with the same time, strictly increasing', () => {
  const ms = 1_764_500_000_123;
  // A last random byte near 255 makes the increments carry into the byte
  // before it.
  const gen = new Monotonic((b) => b.fill(0x12).fill(0xf0, 9), () => ms);
  const ids = Array.from({ length: 40 }, () => gen.next());
  const later = new Monotonic(undefined, () => ms + 1).next();
  const r = goCheck(0, 0, [...ids, later]);
  for (const d of r.decoded) {
    assert.equal(d.error, undefined, `${d.id}: ${d.error ?? ''}`);
  }
  assert.deepEqual(r.decoded.slice(0, ids.length).map((d) => d.ms), ids.map(() => ms));
  assert.equal(r.decoded[ids.length]?.ms, ms + 1);
  assert.equal(r.increasing, true, 'oklog/ulid sees them strictly increasing');
  for (let i = 1; i < ids.length; i++) {
    assert.ok((ids[i] ?? '') > (ids[i - 1] ?? ''), `${ids[i]} sorts after ${ids[i - 1]}`);
  }
});

test('ULIDs minted by oklog/ulid decode in TypeScript with the same time prefix', () => {
  const ms = Date.now();
  const r = goCheck(ms, 5, []);
  assert.equal(r.minted.length, 5);
  const ours = new Monotonic(undefined, () => ms).next();
  for (const id of r.minted) {
    assert.ok(isULID(id), `${id} is a ULID`);
    assert.equal(decodeTime(id), ms);
    assert.equal(id.slice(0, 10), ours.slice(0, 10), 'same millisecond, same time prefix');
    assert.equal(encodeTime(ms), id.slice(0, 10));
  }
});

test('the shared source is monotonic within a millisecond and well formed', () => {
  const ids = Array.from({ length: 2000 }, () => ulid());
  for (let i = 1; i < ids.length; i++) {
    assert.ok((ids[i] ?? '') > (ids[i - 1] ?? ''));
  }
  for (const id of ids) {
    assert.ok(isULID(id));
    assert.equal(id.length, 26);
  }
  assert.ok(Math.abs(decodeTime(ids[0] ?? '') - Date.now()) < 5000);
});

test('decodeTime refuses what is not a ULID, encodeTime refuses bad times', () => {
  assert.throws(() => decodeTime('8ZZZZZZZZZZZZZZZZZZZZZZZZZ'));
  assert.throws(() => decodeTime('01ARZ3NDEKTSV4RRFFQ69G5FAU!'));
  assert.throws(() => decodeTime('01ARZ3NDEKTSV4RRFFQ69G5FAI'));
  assert.throws(() => encodeTime(-1));
  assert.throws(() => encodeTime(2 ** 48));
  assert.equal(decodeTime('01arz3ndektsv4rrffq69g5fav'), 1469922850259);
});

test('the random part overflowing within one millisecond is an error, not a wrap', () => {
  const gen = new Monotonic((b) => b.fill(0xff), () => 5);
  gen.next();
  assert.throws(() => gen.next(), /overflowed/);
});
