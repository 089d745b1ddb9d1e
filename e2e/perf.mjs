// Prints Spark's UI performance figures (measured, not asserted):
//  - the built frontend's size (raw and gzip);
//  - cold start to the first painted frame in Chromium (the harness serves
//    the same built UI the Wails window loads);
//  - memory of the app layer (the harness process: engine, outbox, bound
//    methods) and of the Chromium renderer, idle and with 10,000 moments;
//  - frame times while scrolling through 10,000 moments (virtualized grid).
// The real Wails window's cold start and idle memory come from
// e2e/window-test.sh. Run from frontend/ with `npm run perf`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { loadavg, cpus } from 'node:os';
import { startHarness, frontend } from './harness.mjs';
import { launch } from './tests/lib.mjs';

const N = Number(process.env.PERF_MOMENTS || 10000);

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)]));
}
function rssMB(pid) {
  try {
    const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/);
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}
const mb = (n) => `${n.toFixed(1)} MB`;
const pct = (a, p) => a[Math.min(a.length - 1, Math.floor((a.length * p) / 100))] ?? 0;

const files = walk(join(frontend, 'dist')).filter((f) => !f.endsWith('index.html') || true);
let raw = 0;
let gz = 0;
for (const f of files) {
  const b = readFileSync(f);
  raw += statSync(f).size;
  gz += gzipSync(b, { level: 9 }).length;
}

const { url, proc, stop } = await startHarness();
// Bounded like the tests: a stuck browser must not hang CI.
const limit = Number(process.env.PERF_TIMEOUT || 420) * 1000;
setTimeout(() => {
  console.error(`perf: still running after ${limit / 1000}s: stopping`);
  stop();
  process.exit(1);
}, limit).unref();
process.env.SPARK_HARNESS_URL = url;
const lines = [];
const say = (s) => {
  lines.push(s);
  console.log(s);
};
try {
  say(`built frontend: ${files.length} files, ${(raw / 1024).toFixed(1)} KB raw, ${(gz / 1024).toFixed(1)} KB gzip`);

  // Cold start: a fresh browser profile, the page's first contentful paint.
  const first = await launch();
  const cdp0 = await first.context.newCDPSession(first.page);
  await first.page.locator('[data-testid=engine-state][data-state=connected]').waitFor();
  const paint = await first.page.evaluate(() => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    return fcp ? fcp.startTime : -1;
  });
  say(`cold start to first contentful paint (Chromium, fresh profile): ${paint.toFixed(0)} ms`);
  await new Promise((r) => setTimeout(r, 1500));
  const heap0 = (await cdp0.send('Performance.enable'), await cdp0.send('Performance.getMetrics')).metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
  say(`idle: app layer (harness process) RSS ${mb(rssMB(proc.pid))}; page JS heap ${mb(heap0 / 1048576)}`);
  await first.context.close();

  const t0 = Date.now();
  const r = await fetch(`${url}/test/seed`, { method: 'POST', body: JSON.stringify({ n: N }) });
  if (!r.ok) throw new Error(`seed: ${await r.text()}`);
  say(`seeded ${N} moments (create + small copy each) over loopback in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const { context, page } = await launch();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.locator('[data-testid=engine-state][data-state=connected]').waitFor();
  await page.locator('nav.tabs').getByRole('button', { name: 'Moments' }).click();
  await page.getByTestId('moment-tile').first().waitFor();

  // Scroll to the end, a fixed step per frame, recording every frame's
  // duration; pages load from the engine's cursor as the end comes near.
  const result = await page.evaluate(async (n) => {
    const sc = document.querySelector('[data-testid=moments-scroller]');
    const frames = [];
    let last = performance.now();
    const start = last;
    return await new Promise((resolve) => {
      const step = () => {
        const now = performance.now();
        frames.push(now - last);
        last = now;
        sc.scrollTop += 200;
        const count = document.querySelector('[data-testid=moments-count]')?.textContent ?? '';
        const done = count === `${n} moments` && sc.scrollTop + sc.clientHeight >= sc.scrollHeight - 2;
        if (done || now - start > 120000) {
          resolve({ frames, ms: now - start, count, tiles: document.querySelectorAll('[data-testid=moment-tile]').length });
        } else {
          requestAnimationFrame(step);
        }
      };
      requestAnimationFrame(step);
    });
  }, N);
  const f = result.frames.slice(1).sort((a, b) => a - b);
  const long = f.filter((x) => x > 1000 / 30).length;
  say(`scrolling ${result.count} (${result.frames.length} frames over ${(result.ms / 1000).toFixed(1)} s, ${result.tiles} tiles in the DOM at the end):`);
  say(`  frame time p50 ${pct(f, 50).toFixed(1)} ms, p95 ${pct(f, 95).toFixed(1)} ms, p99 ${pct(f, 99).toFixed(1)} ms, max ${(f.at(-1) ?? 0).toFixed(1)} ms; ${long} frames over 33 ms (${((100 * long) / f.length).toFixed(1)}%)`);
  await new Promise((r) => setTimeout(r, 1000));
  const heap = (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
  const nodes = (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'Nodes')?.value ?? 0;
  // Back to the top over the list already loaded (no fetching, images
  // cached): the cost of the virtualized grid itself. The main thread's own
  // work per frame (script, style, layout) comes from Chromium's counters,
  // which do not count time spent waiting for a busy CPU.
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const m0 = await metrics();
  const back = await page.evaluate(async () => {
    const sc = document.querySelector('[data-testid=moments-scroller]');
    const frames = [];
    let last = performance.now();
    return await new Promise((resolve) => {
      const step = () => {
        const now = performance.now();
        frames.push(now - last);
        last = now;
        sc.scrollTop -= 200;
        if (sc.scrollTop <= 0) resolve(frames);
        else requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    });
  });
  const b = back.slice(1).sort((x, y) => x - y);
  const blong = b.filter((x) => x > 1000 / 30).length;
  const m1 = await metrics();
  const per = (k) => ((1000 * ((m1[k] ?? 0) - (m0[k] ?? 0))) / back.length).toFixed(2);
  say(`scrolling back up over the loaded list (${b.length} frames): p50 ${pct(b, 50).toFixed(1)} ms, p95 ${pct(b, 95).toFixed(1)} ms, p99 ${pct(b, 99).toFixed(1)} ms, max ${(b.at(-1) ?? 0).toFixed(1)} ms; ${blong} frames over 33 ms (${((100 * blong) / b.length).toFixed(1)}%)`);
  say(`  main-thread work per frame while scrolling back: script ${per('ScriptDuration')} ms, style ${per('RecalcStyleDuration')} ms, layout ${per('LayoutDuration')} ms, all tasks ${per('TaskDuration')} ms`);
  say(`with ${N} moments listed: app layer RSS ${mb(rssMB(proc.pid))}; page JS heap ${mb(heap / 1048576)}, ${nodes} DOM nodes`);
  await context.close();
  say(`machine: ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} (shared with other work while measuring)`);
} finally {
  stop();
}
