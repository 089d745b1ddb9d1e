// Runs the browser end-to-end tests: builds and starts the harness (the
// real app layer on a temp data folder, see harness/main.go), runs the
// Playwright tests in tests/ with node's test runner against it, stops
// everything and prints "N passed, N failed". Bounded: the harness is
// killed after E2E_TIMEOUT seconds (default 900), the tests with it.
//
// Run from frontend/ with `npm run e2e` after `npm run build`.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHarness, out } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const limit = Number(process.env.E2E_TIMEOUT || 900) * 1000;

let harness;
try {
  harness = await startHarness();
} catch (e) {
  console.error(`e2e: ${e.message}`);
  console.log('0 passed, 1 failed, 0 skipped');
  process.exit(1);
}
const { url, stop } = harness;

// E2E_FILES (comma-separated names, e.g. "search") picks test files;
// E2E_GREP picks tests by name (node --test-name-pattern).
const only = (process.env.E2E_FILES ?? '').split(',').filter(Boolean);
const files = readdirSync(join(here, 'tests'))
  .filter((f) => f.endsWith('.test.mjs') && (only.length === 0 || only.some((o) => f.startsWith(o))))
  .map((f) => join(here, 'tests', f));
const grep = process.env.E2E_GREP ? [`--test-name-pattern=${process.env.E2E_GREP}`] : [];
const tests = spawn(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=spec', ...grep, ...files], {
  cwd: join(here, '..'),
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, SPARK_HARNESS_URL: url, SPARK_SCREENSHOTS: join(out, 'screenshots') },
  // Its own process group, so that the limit stops the test runner and
  // each test file's process with it: left running, they held the output
  // pipe open and the step waited for them past the limit.
  detached: true,
});
const killer = setTimeout(() => {
  console.error(`e2e: still running after ${limit / 1000}s: stopping`);
  try {
    process.kill(-tests.pid, 'SIGKILL');
  } catch {
    // already gone
  }
  stop();
  process.exit(1);
}, limit);
let log = '';
const num = (k) => Number((log.match(new RegExp(`^ℹ ${k} (\\d+)`, 'm')) || [])[1] || 0);
tests.stdout.on('data', (b) => {
  process.stdout.write(b);
  log += b.toString();
});
const code = await new Promise((r) => tests.on('exit', r));
clearTimeout(killer);
stop();
console.log(`${num('pass')} passed, ${num('fail')} failed, ${num('skipped')} skipped`);
process.exit(code === 0 ? 0 : 1);
