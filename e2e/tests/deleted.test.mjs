// Issue 35: a delete can be undone. A moment deleted waits in Recently
// deleted, reached from Moments, with when it was deleted and Restore; the
// toast of the delete offers Undo. Seen before: a delete was for good, and
// the confirmation said so ("It disappears from Spark").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localWindow, rpc, tab, until, looks } from './lib.mjs';

let page;
localWindow((w) => ({ page } = w));

/** ulid mints a ULID of the time now, in Crockford's base 32, as the
 * window does (ulid.ts). */
function ulid() {
  const c = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let t = Date.now();
  let s = '';
  for (let i = 0; i < 10; i++, t = Math.floor(t / 32)) s = c[t % 32] + s;
  for (let i = 0; i < 16; i++) s += c[Math.floor(Math.random() * 32)];
  return s;
}

/** newNote writes a note through the window's binding and waits for its
 * tile. */
async function newNote(text) {
  const id = ulid();
  await rpc('Moments/AddNote', id, text);
  await tab(page, 'Moments');
  await page.locator(`[data-testid=moment-tile][data-moment="${id}"]`).waitFor();
  return id;
}

/** deleteFromDialog deletes a moment as Dad does: its dialog, Delete…,
 * the confirmation. It returns the confirmation's words. */
async function deleteFromDialog(id) {
  await page.locator(`[data-testid=moment-tile][data-moment="${id}"]`).click();
  const dialog = page.getByTestId('moment-dialog');
  await dialog.getByRole('button', { name: 'Delete…' }).click();
  const confirm = page.locator('dialog.confirm');
  const said = await confirm.innerText();
  await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
  await until(async () => (await page.locator(`[data-testid=moment-tile][data-moment="${id}"]`).count()) === 0, 'the tile to go');
  return said;
}

test('a deleted moment waits in Recently deleted with when, and Restore puts it back in Moments', async () => {
  const text = `Dentist on Thursday at ten ${Date.now()}`;
  const id = await newNote(text);
  const said = await deleteFromDialog(id);
  assert.match(said, /Recently deleted/, 'the confirmation says where the moment goes');
  assert.match(said, /30 days/);

  await page.getByTestId('open-deleted').click();
  const dlg = page.getByTestId('deleted-dialog');
  const row = dlg.locator(`[data-testid=deleted-row][data-moment="${id}"]`);
  await row.waitFor();
  assert.match(await row.innerText(), new RegExp(text.slice(0, 20)));
  assert.match(await row.innerText(), /Deleted .* · removed for good in 30 days/, 'the row says when it was deleted, and how long it waits');
  assert.match(await dlg.innerText(), /then they are removed for good with their photos/, 'the list says what happens after the 30 days');
  assert.deepEqual(await looks(page, 'recently-deleted'), []);

  await row.getByTestId('deleted-restore').click();
  await row.waitFor({ state: 'detached' });
  await page.getByText('is back in Moments').first().waitFor();
  await dlg.getByRole('button', { name: 'Close' }).click();
  await page.locator(`[data-testid=moment-tile][data-moment="${id}"]`).waitFor();
  await until(async () => !(await rpc('Moments/Get', id)).deleted_at, 'the engine to have it back');
});

test('Undo on the delete’s toast brings the moment back at once', async () => {
  const id = await newNote(`Call the plumber ${Date.now()}`);
  await deleteFromDialog(id);
  await page.locator('.toast').filter({ hasText: 'Moment deleted' }).getByRole('button', { name: 'Undo' }).click();
  await page.locator(`[data-testid=moment-tile][data-moment="${id}"]`).waitFor();
  await page.getByTestId('open-deleted').click();
  const dlg = page.getByTestId('deleted-dialog');
  await until(async () => (await dlg.getByTestId('deleted-status').innerText()) !== 'Looking for what was deleted…', 'the list read');
  assert.equal(await dlg.locator(`[data-testid=deleted-row][data-moment="${id}"]`).count(), 0, 'the moment undone is not in Recently deleted');
  await dlg.getByRole('button', { name: 'Close' }).click();
});

test('Recently deleted, left open, shows a delete and a restore made elsewhere', async () => {
  const earlier = await newNote(`Pay the window cleaner ${Date.now()}`);
  const id = await newNote(`Renew the car tax ${Date.now()}`);
  await rpc('Moments/Delete', earlier);
  await until(async () => (await page.locator(`[data-testid=moment-tile][data-moment="${earlier}"]`).count()) === 0, 'the tile to go');
  await page.getByTestId('open-deleted').click();
  const dlg = page.getByTestId('deleted-dialog');
  const kept = dlg.locator(`[data-testid=deleted-row][data-moment="${earlier}"]`);
  await kept.waitFor();
  await kept.getByTestId('deleted-restore').focus();
  const focusedRow = () => page.evaluate(() => document.activeElement?.closest('[data-testid=deleted-row]')?.getAttribute('data-moment'));

  // Deleted while the list is open (on another computer, say): its row
  // comes, and the button Dad is on keeps its focus.
  const row = dlg.locator(`[data-testid=deleted-row][data-moment="${id}"]`);
  await rpc('Moments/Delete', id);
  await row.waitFor({ timeout: 10_000 });
  assert.equal(await focusedRow(), earlier, 'the focus stays on the row Dad was on');

  // Restored elsewhere: its row goes.
  await rpc('Moments/Restore', id);
  await row.waitFor({ state: 'detached', timeout: 10_000 });
  assert.equal(await focusedRow(), earlier, 'the focus stays on the row Dad was on');
  assert.equal(await kept.count(), 1);
  await dlg.getByRole('button', { name: 'Close' }).click();
});
