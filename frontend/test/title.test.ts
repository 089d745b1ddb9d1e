// What a search result is titled: Dad tells four uncaptioned photos apart
// by the first words of what Pippa read in them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { titleOf } from '../src/words.js';

const read = (text: string) => [{ status: 'finished', mode: 'quick', text, error: '' }];

test('a photo is titled by its caption, else the first words of its reading, else "Photo"', () => {
  assert.equal(titleOf({ kind: 'photo', caption: 'Letter from the council', pending: false, readings: read('A letter.') }), 'Letter from the council');
  assert.equal(
    titleOf({ kind: 'photo', caption: '', pending: false, readings: read('A bright afternoon in the garden: a path leads to a red door.') }),
    'A bright afternoon in the garden…',
  );
  assert.equal(titleOf({ kind: 'photo', caption: '', pending: false, readings: read('A red door.') }), 'A red door.');
  assert.equal(titleOf({ kind: 'photo', caption: '', pending: false, readings: [] }), 'Photo');
  assert.equal(titleOf({ kind: 'note', caption: 'Buy stamps', pending: false, readings: [] }), 'Note');
  assert.equal(titleOf({ kind: 'recall', caption: '', pending: false, readings: [] }), 'Quick recall');
});
