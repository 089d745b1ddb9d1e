// Issue 32: the window says which family member added a moment or keeps a
// phrase, by the member's name, and only someone else's. Dad's window uses
// the family engine with a device key of his (member dad); Mum (member mum)
// added a photo and kept a phrase of it, Dad a note and a phrase. The
// moment dialog says "Added by Mum" on hers, with no caption to edit and no
// Delete but why there is none, and nothing on his; Phrases
// says "Kept by Mum" on hers, with no Remove but why there is none, and
// Dad's keeps its Remove; a removal of hers sent anyway waits in the
// Outbox, which says whose phrase it is. Pictures in light and dark, axe
// on each.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openOnFamily, harness, rpc, tab, shot, until, useLocalEngine, axe } from './lib.mjs';

let context;
let page;
let remote;

before(async () => {
  ({ context, page, remote } = await openOnFamily());
});

after(async () => {
  await useLocalEngine().catch(() => {});
  await context?.close();
});

/** shots takes a picture in light and in dark, and runs axe in both. */
async function shots(name) {
  const found = [];
  await shot(page, `${name}-light`);
  found.push(...(await axe(page, `${name}, light`)));
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, `${name}-dark`);
  found.push(...(await axe(page, `${name}, dark`)));
  await page.emulateMedia({ colorScheme: 'light' });
  // The aria-label on Moments' scroller is item 12's, not this test's.
  return found.filter((v) => !v.nodes.every((n) => n.startsWith('.scroller'))).map((v) => `${v.where}: ${v.id}`);
}

test('another member’s moment and phrase say whose they are; Dad’s own say nothing', async () => {
  const { token: dad } = await harness('/test/remote/member', { name: 'dads-laptop', member: 'dad' });
  await rpc('Settings/UseRemote', remote.url, dad);
  // Read by Pippa, as every photo on the family engine is: the tests after
  // this one wait for every photo there to have its reading.
  const mums = (await harness('/test/moment', { family: true, member: 'mum', kind: 'photo', caption: 'The school play', phrase: 'bring a torch', read: true })).id;
  const dads = (await harness('/test/moment', { family: true, member: 'dad', kind: 'note', caption: 'Bleed the radiators before winter', phrase: 'bleed the radiators' })).id;
  await until(async () => (await rpc('Moments/Get', mums)).added_by === 'mum', 'the window knows Mum added her photo');
  assert.equal((await rpc('Moments/Get', dads)).added_by, '', 'Dad’s own note names no one');

  await page.reload();
  await tab(page, 'Moments');
  const dialog = page.getByTestId('moment-dialog');
  await page.locator(`[data-testid=moment-tile][data-moment="${mums}"]`).click();
  await dialog.getByTestId('moment-added-by').filter({ hasText: 'Added by Mum' }).waitFor();
  // Dad's key may not change Mum's moment: no caption to edit, no Delete.
  assert.equal(await dialog.getByTestId('moment-owner-only').innerText(), 'Only Mum can change its caption or delete it.');
  assert.equal(await dialog.getByTestId('caption').isVisible(), false, 'no caption to edit');
  assert.equal(await dialog.getByRole('button', { name: 'Delete…' }).count(), 0, 'no Delete that could only be turned down');
  const found = await shots('members-moment');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  await page.locator(`[data-testid=moment-tile][data-moment="${dads}"]`).click();
  await dialog.getByRole('heading').filter({ hasText: 'Note' }).waitFor();
  assert.equal(await dialog.getByTestId('moment-added-by').count(), 0, 'Dad’s own note says nothing of who added it');
  assert.equal(await dialog.getByTestId('moment-owner-only').count(), 0);
  assert.equal(await dialog.getByRole('button', { name: 'Delete…' }).count(), 1, 'Dad may delete his own');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });

  await tab(page, 'Phrases');
  const hers = page.getByTestId('phrase').filter({ hasText: 'bring a torch' });
  const his = page.getByTestId('phrase').filter({ hasText: 'bleed the radiators' });
  await hers.getByTestId('phrase-kept').filter({ hasText: /^Kept by Mum, / }).waitFor();
  assert.equal(await hers.getByTestId('phrase-keeper-only').innerText(), 'Mum kept this phrase, so only Mum can remove it.');
  assert.equal(await hers.getByRole('button', { name: /^Remove/ }).count(), 0, 'no Remove that could only be turned down');
  await his.waitFor();
  assert.match(await his.getByTestId('phrase-kept').innerText(), /^Kept (?!by)/, 'Dad’s own phrase names no one');
  assert.equal(await his.getByRole('button', { name: /^Remove/ }).count(), 1, 'Dad may remove his own');
  found.push(...(await shots('members-phrases')));

  // A removal sent anyway (a window that did not know yet) is turned down,
  // and the Outbox says whose phrase it is while it waits.
  await rpc('Phrases/Remove', 'keep:bring a torch');
  await tab(page, 'Outbox');
  const line = page.getByTestId('write').filter({ hasText: 'bring a torch' });
  await line.getByTestId('write-waiting').filter({ hasText: 'Not sent yet: Mum kept this phrase, and only Mum can remove it.' }).waitFor();
  found.push(...(await shots('members-outbox')));
  for (const w of await rpc('Outbox/Writes')) await rpc('Outbox/Discard', w.id);
  assert.deepEqual(found, [], 'axe finds nothing');
});
