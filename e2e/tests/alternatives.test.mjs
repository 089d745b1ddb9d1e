// Issue 35: no word is lost when two computers write about one moment.
// A caption changed on another computer while Dad types his own is kept
// beside his as an alternative, named by where and when it was written,
// with "Use this one" and "Dismiss"; the tile says the moment has two
// captions; a caption typed on a moment deleted elsewhere brings it back,
// and says so. Seen before: the caption that arrived last replaced the
// other for good, and an edit of a moment deleted elsewhere was turned
// down and Dad's words dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localWindow, harness, rpc, tab, until, looks } from './lib.mjs';

let page;
localWindow((w) => ({ page } = w));

/** openNote writes a note on the app's engine as another computer would,
 * and opens it in the window: the dialog. */
async function openNote(caption) {
  const { id } = await harness('/test/moment', { kind: 'note', caption });
  await tab(page, 'Moments');
  const tile = page.locator(`[data-testid=moment-tile][data-moment="${id}"]`);
  await tile.waitFor();
  await tile.click();
  const dialog = page.getByTestId('moment-dialog');
  await until(async () => (await dialog.getByTestId('caption').inputValue()) === caption, 'the note in its dialog');
  return { id, dialog, tile };
}

/** typeCaption types a caption as Dad does and leaves the field, which
 * saves it. */
async function typeCaption(dialog, text) {
  const field = dialog.getByTestId('caption');
  await field.fill(text);
  await field.blur();
  await until(async () => /Saved/.test(await dialog.getByTestId('caption-state').innerText()), 'the caption saved');
}

test('a caption changed on another computer while Dad typed is kept beside his', async () => {
  const { id, dialog, tile } = await openNote('water bill');
  // Dad starts typing; meanwhile the desktop changes the caption.
  await dialog.getByTestId('caption').fill('electricity bill');
  await harness('/test/elsewhere', { id, caption: 'gas bill', base: 'water bill', by: 'dads-desktop' });
  await dialog.getByTestId('caption').blur();
  await until(async () => /Saved/.test(await dialog.getByTestId('caption-state').innerText()), 'the caption saved');

  const alt = dialog.getByTestId('alternative');
  await alt.waitFor();
  assert.equal(await dialog.getByTestId('caption').inputValue(), 'electricity bill', 'Dad’s words are the caption');
  assert.equal(await alt.getByTestId('alternative-text').innerText(), 'gas bill');
  assert.match(await alt.innerText(), /^Also written on dads-desktop, .+:/);
  await dialog.getByTestId('use-alternative').waitFor();
  const found = await looks(page, 'alternative-dialog');
  assert.deepEqual(found, [], JSON.stringify(found, null, 1));

  // The tile says so, once the dialog is closed.
  await dialog.getByRole('button', { name: 'Close' }).click();
  await until(async () => (await tile.getAttribute('data-alternatives')) === 'true', 'the tile to mark two captions');
  assert.match(await tile.innerText(), /Two captions/);

  // Use this one: the desktop's words become the caption.
  await tile.click();
  await dialog.getByTestId('use-alternative').click();
  await until(async () => (await dialog.getByTestId('alternative').count()) === 0, 'the alternative to go');
  assert.equal(await dialog.getByTestId('caption').inputValue(), 'gas bill');
  const m = await rpc('Moments/Get', id);
  assert.equal(m.caption, 'gas bill');
  assert.deepEqual(m.alternatives, []);
  await dialog.getByRole('button', { name: 'Close' }).click();
});

test('Dismiss sets the other caption aside and keeps Dad’s', async () => {
  const { id, dialog } = await openNote('school trip');
  await dialog.getByTestId('caption').fill('school trip money');
  await harness('/test/elsewhere', { id, caption: 'school trip on Friday', base: 'school trip', by: 'mums-laptop' });
  await dialog.getByTestId('caption').blur();
  await dialog.getByTestId('alternative').waitFor();
  // Both changed the same end of the caption: not merged, the other kept.
  assert.equal(await dialog.getByTestId('alternative-text').innerText(), 'school trip on Friday');
  await dialog.getByTestId('dismiss-alternative').click();
  await until(async () => (await dialog.getByTestId('alternative').count()) === 0, 'the alternative to go');
  const m = await rpc('Moments/Get', id);
  assert.equal(m.caption, 'school trip money');
  assert.deepEqual(m.alternatives, []);
  await dialog.getByRole('button', { name: 'Close' }).click();
});

test('a caption typed on a moment deleted elsewhere brings it back, and says so', async () => {
  const { id, dialog } = await openNote('the plumber');
  await harness('/test/elsewhere', { id, delete: true });
  await typeCaption(dialog, 'the plumber, Tuesday 9am');
  const said = page.getByText('What you wrote brought this moment back from Recently deleted.');
  await said.waitFor();
  await looks(page, 'brought-back');
  const m = await rpc('Moments/Get', id);
  assert.equal(m.deleted_at, '');
  assert.equal(m.caption, 'the plumber, Tuesday 9am');
  await dialog.getByRole('button', { name: 'Close' }).click();
});
