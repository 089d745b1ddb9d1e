// Settings: the outbox's files that could not be removed yet, said for Dad
// under "Your data" with the folders behind Details; and a choice Dad
// makes while Settings loads is not redrawn over by the copy it fetched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localWindow, harness, tab, shot } from './lib.mjs';

let page;
localWindow((w) => ({ page } = w));

test('files Spark could not remove yet: a sentence for Dad under Your data, the folders behind Details', async () => {
  // As a refused removal leaves them (a program holding a copy open, as
  // antivirus does on Windows): one photo already sent, one discarded.
  const sent = await harness('/test/leftover', { reason: 'delivered' });
  const discarded = await harness('/test/leftover', { reason: 'discarded' });
  await tab(page, 'Settings');
  const yourData = page.locator('fieldset').filter({ has: page.locator('legend', { hasText: 'Your data' }) });
  const block = yourData.getByTestId('leftovers');
  await block.waitFor();
  const said = await block.locator('p').first().innerText();
  assert.equal(said, '1 photo already sent and 1 photo you discarded could not be removed from this computer yet (a program may have them open). Spark tries again on its own.');
  assert.doesNotMatch(said, /\/|\\|outbox|files/, 'no folder in the sentence');
  console.log(`# Your data: ${said}`);

  const details = block.locator('details');
  assert.equal(await details.locator('summary').innerText(), 'Details');
  assert.equal(await details.locator('pre').isVisible(), false, 'the folders are behind Details');
  await details.locator('summary').click();
  const lines = (await details.locator('pre').innerText()).split('\n');
  assert.equal(lines.length, 2, `one line per folder: ${lines.join(' | ')}`);
  const of = (path) => lines.find((l) => l.startsWith(path)) ?? '';
  assert.match(of(sent.path), /\(already sent; waiting since .*, 1 try; last: remove copy\.jpg: The process cannot access the file because it is being used by another process\.\)$/, of(sent.path) || lines.join(' | '));
  assert.match(of(discarded.path), /\(discarded; waiting since /, of(discarded.path) || lines.join(' | '));
  await yourData.scrollIntoViewIfNeeded();
  await shot(page, 'settings-leftovers-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'settings-leftovers-dark');
  await page.emulateMedia({ colorScheme: 'light' });
});

test('a click on Family engine while Settings loads is kept: the copy that arrives after does not redraw over it', async () => {
  await tab(page, 'Settings');
  const remote = page.getByLabel('Family engine');
  await remote.waitFor();
  assert.equal(await remote.isChecked(), false, 'Spark uses this computer’s engine');
  await tab(page, 'Moments');

  // Settings shown again: its fresh copy is held back until Dad has clicked.
  let asked;
  const askedFor = new Promise((r) => (asked = r));
  let release;
  const released = new Promise((r) => (release = r));
  await page.route('**/rpc/Settings/Get', async (route) => {
    asked();
    await released;
    await route.continue();
  });
  await tab(page, 'Settings');
  await askedFor;
  await remote.check();
  await page.getByLabel('Connection text').waitFor();

  const answered = page.waitForResponse('**/rpc/Settings/Get');
  release();
  await (await answered).finished();
  // Whatever the answer would redraw is drawn within a few ticks of it.
  await page.evaluate(() => new Promise((r) => setTimeout(r, 500)));
  await page.unroute('**/rpc/Settings/Get');
  assert.equal(await page.getByLabel('Family engine').isChecked(), true, 'Family engine is still chosen');
  assert.equal(await page.getByLabel('Connection text').isVisible(), true, 'the connection text field is still shown');
});
