// The reader of words' scheduling (src/ocrlane.ts), with a fake worker
// factory standing in for tesseract.js and a clock of the test's own: one
// job at a time, in order; the worker started on the first job only, let go
// after the idle time without work, started again by a job after that;
// stop() rejects what waits; a failed job lets the worker go unless keep()
// says it is sound. Also tidyText and the wording of errors. The real
// reader, in a real browser, is e2e/tests/ocr.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLane, explain, isLangCode, ReadError, StoppedError, tidyText, type Timers } from '../src/ocrlane.js';

/** Clock: timers that fire only when the test moves time on. */
class Clock implements Timers {
  now = 0;
  private next = 1;
  private due = new Map<number, { at: number; fn: () => void }>();
  set(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.due.set(id, { at: this.now + ms, fn });
    return id;
  }
  clear(handle: unknown): void {
    this.due.delete(handle as number);
  }
  get waiting(): number {
    return this.due.size;
  }
  /** advance moves time on by ms, firing what falls due, then lets the
   * promises settle. */
  async advance(ms: number): Promise<void> {
    this.now += ms;
    for (const [id, t] of [...this.due].sort((a, b) => a[1].at - b[1].at)) {
      if (t.at <= this.now) {
        this.due.delete(id);
        t.fn();
      }
    }
    await settle();
  }
}

/** settle lets every pending promise callback run, and the fake's own
 * turns of the event loop (it starts a worker in one). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
}

/** A fake worker: counts its jobs, and is told when it is let go. */
interface Fake {
  id: number;
  jobs: number;
  stopped: boolean;
}

function factory() {
  const made: Fake[] = [];
  let failNext = false;
  return {
    made,
    failStart() {
      failNext = true;
    },
    start: async (): Promise<Fake> => {
      await new Promise<void>((r) => setImmediate(r));
      if (failNext) {
        failNext = false;
        throw new Error('worker script 404');
      }
      const w = { id: made.length + 1, jobs: 0, stopped: false };
      made.push(w);
      return w;
    },
    stop: async (w: Fake) => {
      w.stopped = true;
    },
    alive: () => made.filter((w) => !w.stopped).length,
  };
}

/** deferred: a job the test finishes by hand. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

test('jobs run one at a time, in the order asked, on one worker started by the first', async () => {
  const clock = new Clock();
  const f = factory();
  const lane = createLane<Fake>({ start: f.start, stop: f.stop, idleMs: 30_000, timers: clock });
  assert.equal(lane.started, false, 'no worker before the first job');
  assert.equal(f.made.length, 0);

  let running = 0;
  let most = 0;
  const order: number[] = [];
  const gates = [deferred<void>(), deferred<void>(), deferred<void>()];
  const runs = gates.map((g, i) =>
    lane.run(async (w) => {
      running++;
      most = Math.max(most, running);
      w.jobs++;
      await g.promise;
      order.push(i);
      running--;
      return `read ${i} on worker ${w.id}`;
    }),
  );
  assert.equal(lane.pending, 3);
  await settle();
  assert.equal(f.made.length, 1, 'one worker started');
  // Finished out of order by hand: still answered one after the other.
  gates[2]!.resolve();
  gates[1]!.resolve();
  await settle();
  assert.deepEqual(order, [], 'the second and third wait for the first');
  gates[0]!.resolve();
  assert.deepEqual(await Promise.all(runs), ['read 0 on worker 1', 'read 1 on worker 1', 'read 2 on worker 1']);
  assert.deepEqual(order, [0, 1, 2]);
  assert.equal(most, 1, 'never two at once');
  assert.equal(f.made.length, 1, 'one worker for all three');
  assert.equal(f.made[0]!.jobs, 3);
  assert.equal(lane.pending, 0);
});

test('the worker is let go after the idle time without work, and a job after that starts another', async () => {
  const clock = new Clock();
  const f = factory();
  const lane = createLane<Fake>({ start: f.start, stop: f.stop, idleMs: 30_000, timers: clock });
  await lane.run(async () => 'one');
  await settle();
  assert.equal(lane.started, true);
  assert.equal(clock.waiting, 1, 'the idle timer is set once the queue is empty');

  // Work within the idle time keeps the same worker, and the clock starts again.
  await clock.advance(29_000);
  assert.equal(f.alive(), 1);
  await lane.run(async () => 'two');
  await settle();
  await clock.advance(29_000);
  assert.equal(f.alive(), 1, 'kept: 29 s since the last job');
  assert.equal(f.made.length, 1);

  await clock.advance(1_000);
  assert.equal(f.made[0]!.stopped, true, 'let go 30 s after the last job');
  assert.equal(lane.started, false);
  assert.equal(clock.waiting, 0);

  assert.equal(await lane.run(async (w) => `three on ${w.id}`), 'three on 2', 'a new worker');
  assert.equal(f.alive(), 1);
  await settle();
  await clock.advance(30_000);
  assert.equal(f.alive(), 0, 'and that one is let go when idle too');
});

test('no idle stop while a job runs, however long it takes', async () => {
  const clock = new Clock();
  const f = factory();
  const lane = createLane<Fake>({ start: f.start, stop: f.stop, idleMs: 1_000, timers: clock });
  const g = deferred<string>();
  const run = lane.run(() => g.promise);
  await settle();
  await clock.advance(10_000);
  assert.equal(f.alive(), 1, 'busy: kept');
  g.resolve('done');
  assert.equal(await run, 'done');
  await settle();
  await clock.advance(1_000);
  assert.equal(f.alive(), 0);
});

test('a job after the idle stop waits for the old worker to be let go before starting one', async () => {
  const clock = new Clock();
  const made: number[] = [];
  const stopping = deferred<void>();
  let alive = 0;
  let most = 0;
  const lane = createLane<number>({
    start: async () => {
      alive++;
      most = Math.max(most, alive);
      made.push(made.length + 1);
      return made.length;
    },
    stop: async () => {
      await stopping.promise;
      alive--;
    },
    idleMs: 100,
    timers: clock,
  });
  await lane.run(async () => undefined);
  await settle();
  await clock.advance(100); // the stop starts, and hangs
  const next = lane.run(async (w) => w);
  await settle();
  assert.equal(made.length, 1, 'not started while the old one is still going');
  stopping.resolve();
  assert.equal(await next, 2);
  assert.equal(most, 1, 'never two workers at once');
});

test('stop() lets the worker go and rejects the job running and those waiting; the lane works after', async () => {
  const clock = new Clock();
  const f = factory();
  const lane = createLane<Fake>({ start: f.start, stop: f.stop, idleMs: 30_000, timers: clock });
  const never = new Promise<string>(() => undefined); // a worker that hangs
  const a = lane.run(() => never);
  const b = lane.run(async () => 'b');
  await settle();
  await lane.stop();
  await assert.rejects(a, StoppedError);
  await assert.rejects(b, (e: unknown) => e instanceof StoppedError && e.message === 'The reader of words was stopped before it read this photo.');
  assert.equal(f.made[0]!.stopped, true);
  assert.equal(lane.started, false);
  assert.equal(clock.waiting, 0, 'no idle timer left behind');
  assert.equal(await lane.run(async (w) => w.id), 2, 'a job after stop() starts a new worker');
});

test('stop() while the worker starts: the worker is let go when it comes', async () => {
  const clock = new Clock();
  const gate = deferred<Fake>();
  const w: Fake = { id: 1, jobs: 0, stopped: false };
  const lane = createLane<Fake>({ start: () => gate.promise, stop: (x) => void (x.stopped = true), idleMs: 1_000, timers: clock });
  const a = lane.run(async () => 'a');
  await settle();
  assert.equal(lane.started, true, 'starting counts as started');
  await lane.stop();
  await assert.rejects(a, StoppedError);
  gate.resolve(w);
  await settle();
  assert.equal(w.stopped, true);
});

test('a worker that fails to start fails that job only; the next job tries again', async () => {
  const clock = new Clock();
  const f = factory();
  const lane = createLane<Fake>({ start: f.start, stop: f.stop, idleMs: 1_000, timers: clock });
  f.failStart();
  await assert.rejects(lane.run(async () => 'x'), /worker script 404/);
  assert.equal(lane.started, false);
  assert.equal(clock.waiting, 0, 'no timer for no worker');
  assert.equal(await lane.run(async (w) => w.id), 1);
});

test('a failed job lets its worker go, unless keep() says it is sound', async () => {
  const clock = new Clock();
  const f = factory();
  const lane = createLane<Fake>({
    start: f.start,
    stop: f.stop,
    idleMs: 1_000,
    timers: clock,
    keep: (e) => e instanceof ReadError && e.kind === 'image',
  });
  await assert.rejects(lane.run(async () => Promise.reject(new ReadError('image', 'broken photo'))), /broken photo/);
  assert.equal(f.alive(), 1, 'kept after a photo it could not open');
  await assert.rejects(lane.run(async () => Promise.reject(new Error('memory access out of bounds'))));
  await settle();
  assert.equal(f.made[0]!.stopped, true, 'let go after anything else');
  assert.equal(await lane.run(async (w) => w.id), 2, 'the next job has a fresh worker');
});

test('tidyText: trailing spaces per line go, and empty lines at the start and the end', () => {
  assert.equal(tidyText('\n\n  Severn Water  \nYour reference RD/7731/Q \t\n\nAmount due 41.20\n\n\n'), '  Severn Water\nYour reference RD/7731/Q\n\nAmount due 41.20');
  assert.equal(tidyText('a\r\nb\u00a0\r\n'), 'a\nb');
  assert.equal(tidyText(' \n \n'), '');
  assert.equal(tidyText(''), '');
});

test('errors are worded for the caller, with tesseract.js\'s own words as the cause', () => {
  const lang = explain('Error: Network error while fetching http://x/ocr/lang/fra.traineddata.gz. Response code: 404', 'start', 'fra');
  assert.ok(lang instanceof ReadError);
  assert.equal(lang.kind, 'lang');
  assert.equal(lang.message, 'No words data for the language "fra" is in this build of Spark.');
  assert.match(String(lang.cause), /Response code: 404/);
  const start = explain(new Error("Failed to execute 'importScripts'"), 'start', 'eng');
  assert.equal((start as ReadError).kind, 'start');
  assert.match(start.message, /could not start/);
  const image = explain('Error: Error attempting to read image.', 'read', 'eng');
  assert.equal((image as ReadError).kind, 'image');
  const other = explain({ weird: true }, 'read', 'eng');
  assert.equal((other as ReadError).kind, 'read');
  for (const e of [lang, start, image, other]) assert.doesNotMatch(e.message, /tesseract|traineddata|wasm|leptonica|pix|\n/i);
  const stopped = new StoppedError();
  assert.equal(explain(stopped, 'read', 'eng'), stopped, 'ours pass through');
});

test('isLangCode: the shape of a shipped language code, as the Go side checks it', () => {
  for (const ok of ['eng', 'deu', 'chi_sim']) assert.equal(isLangCode(ok), true, ok);
  for (const no of ['', 'en', 'ENG', 'engl', 'eng_', 'eng-gb', '../eng', 'eng\n', 'e1g']) assert.equal(isLangCode(no), false, JSON.stringify(no));
});
