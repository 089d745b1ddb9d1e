// Issue 36: the Outbox's "Send now" is there only when something waits to
// be sent; with nothing waiting it offered to send nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openOnFamily, harness, rpc, tab, until, axe, useLocalEngine } from './lib.mjs';

let context;
let page;

before(async () => {
  ({ context, page } = await openOnFamily());
});
after(async () => {
  await harness('/test/remote/start', {});
  await context?.close();
  await useLocalEngine();
});

/** waiting is how many of the Outbox's entries and writes wait to be
 * sent (not those parked, which need Dad). */
const waiting = async () => {
  const s = await rpc('Outbox/Status');
  return Object.values(s.waiting).reduce((a, b) => a + b, 0);
};

test('Send now shows only while something waits to be sent', async () => {
  await tab(page, 'Outbox');
  const send = page.getByRole('button', { name: 'Send now' });
  await until(async () => (await waiting()) === 0, 'nothing waiting');
  await page.getByTestId('outbox-summary').filter({ hasText: /Nothing is waiting|decide/ }).waitFor();
  assert.equal(await send.isVisible(), false, 'no "Send now" with nothing waiting');

  // The family engine away, a note waits: "Send now" is there.
  await harness('/test/remote/stop');
  await page.locator('[data-testid=engine-state][data-state=offline]').waitFor({ timeout: 30_000 });
  await tab(page, 'Add photos');
  await page.locator('#note').fill(`Ring the garage ${Date.now()}`);
  await page.getByRole('button', { name: 'Keep this note' }).click();
  await tab(page, 'Outbox');
  await send.waitFor();
  assert.deepEqual(await axe(page, 'Outbox, a note waiting'), []);

  // The engine back and the note sent: "Send now" goes.
  await harness('/test/remote/start', {});
  await send.click().catch(() => {}); // it may be sent before the click
  await until(async () => (await waiting()) === 0, 'the note sent', 60_000);
  await until(async () => !(await send.isVisible()), '"Send now" gone once nothing waits');
});
