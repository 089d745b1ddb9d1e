// Issue 21, item 3, and issue 20's "one status": the offline banner, the
// status bar and the Outbox's summary say the same of the outbox at every
// instant. Seen before: "Everything sent · 1 photo needs you" in the bar,
// and 0.3 s after "Send again" the Outbox said "Everything is sent.
// Nothing is waiting." while the banner said "1 photo is waiting…". All
// three are drawn from one app.OutboxStatus now; this samples them every
// few milliseconds around a "Send again" on a parked photo.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, harness, rpc, choose, tab, until, url, useLocalEngine } from './lib.mjs';

let context;
let page;
let parkedID = '';

before(async () => {
  assert.ok(url(), 'SPARK_HARNESS_URL is set (run through e2e/run.mjs)');
  const remote = await harness('/test/remote/prepare');
  await harness('/test/remote/start', { maxMediaSize: 1_000_000 });
  await rpc('Settings/UseRemote', remote.url, remote.token);
  ({ context, page } = await launch({ width: 1280, height: 800 }));
  await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'family engine' }).waitFor();
});

after(async () => {
  if (parkedID) await rpc('Outbox/Discard', parkedID).catch(() => {});
  await harness('/test/remote/start', {}).catch(() => {});
  await useLocalEngine().catch(() => {});
  await context?.close();
});

/** said reads, from the page's own words, what each of the three says
 * waits and needs Dad: the tally words ("1 photo", "1 note and 2
 * changes"), "" for none; banner is null while the banner is hidden. */
function said(s) {
  const m = (text, re) => (text.match(re) ?? [])[1] ?? '';
  return {
    bar: { waiting: m(s.waiting, /^(.+) waiting to be sent$/), parked: m(s.parked, /^(.+) needs? you$/) },
    banner: s.banner === null ? null : m(s.banner, /(\d[^.]*?) (?:is|are) waiting safely/),
    summary: { waiting: m(s.summary, /^(.*?) (?:is|are) on the way/), parked: m(s.summary, /(?:^|\. )([^.]*?) needs? you to decide/) },
    // Where everything is, as the bar and the Outbox say it when nothing waits.
    everythingSent: s.waiting === 'Everything sent' || /Everything is (sent|kept)/.test(s.summary),
  };
}

test('after “Send again” on a parked photo, the banner, the status bar and the Outbox never disagree', async () => {
  const { paths } = await harness('/test/generate', { n: 1, big: true });
  await choose(page, paths);
  const [entry] = await until(async () => {
    const es = await rpc('Outbox/Entries');
    const parked = es.filter((e) => e.state === 'parked' && e.steps[1].done);
    return parked.length === 1 && parked;
  }, 'the original refused, its moment and small copy taken', 90_000);
  parkedID = entry.id;
  // The family engine goes away: the banner shows, and "Send again" makes
  // the photo wait instead of being refused at once.
  await harness('/test/remote/stop');
  await page.locator('[data-testid=engine-state][data-state=offline]').waitFor({ timeout: 30_000 });
  await page.locator('.banner').waitFor();
  await tab(page, 'Outbox');
  const row = page.locator(`[data-testid=entry][data-entry="${entry.id}"][data-state=parked]`);
  await row.waitFor();

  await page.evaluate(() => {
    const text = (sel) => document.querySelector(sel)?.textContent?.trim() ?? '';
    const w = window;
    w.__samples = [];
    const sample = () => {
      const banner = document.querySelector('.banner');
      w.__samples.push({
        at: performance.now(),
        banner: banner && !banner.hidden ? banner.textContent.trim() : null,
        waiting: text('[data-testid=waiting]'),
        parked: text('[data-testid=parked]'),
        summary: text('[data-testid=outbox-summary]'),
      });
    };
    sample();
    w.__sampler = setInterval(sample, 5);
    // And at every change of any of them, before the next paint.
    w.__observer = new MutationObserver(sample);
    w.__observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['hidden'] });
  });
  await row.getByTestId('retry').click();
  // It waits now (the engine is away): every part comes to say so.
  await until(async () => (await page.getByTestId('waiting').innerText()) === '1 photo waiting to be sent', 'the bar says 1 photo waits', 30_000);
  await page.getByTestId('outbox-summary').filter({ hasText: '1 photo is on the way' }).waitFor({ timeout: 30_000 });
  await page.waitForTimeout(4500); // a status poll (4 s) or two
  const samples = await page.evaluate(() => {
    clearInterval(window.__sampler);
    window.__observer.disconnect();
    return window.__samples;
  });
  console.log(`# ${samples.length} samples over ${Math.round(samples.at(-1).at - samples[0].at)} ms`);
  const seen = new Set();
  const wrong = new Map(); // what disagreed, and the first instant it did
  const check = (ok, what, s) => {
    if (!ok && !wrong.has(what)) wrong.set(what, JSON.stringify(s));
  };
  for (const s of samples) {
    const got = said(s);
    seen.add(`${s.waiting} | ${s.parked} | ${s.summary} | ${s.banner}`);
    check(!(got.everythingSent && (got.bar.parked || got.summary.parked)), '“Everything sent” beside something that needs Dad', s);
    check(got.bar.waiting === got.summary.waiting, 'the bar and the Outbox disagree on what waits', s);
    check(got.bar.parked === got.summary.parked, 'the bar and the Outbox disagree on what needs Dad', s);
    if (got.banner !== null) check(got.banner === got.bar.waiting, 'the banner and the bar disagree on what waits', s);
  }
  for (const s of seen) console.log(`# seen: ${s}`);
  assert.deepEqual([...wrong].map(([what, s]) => `${what}: ${s}`), []);
});
