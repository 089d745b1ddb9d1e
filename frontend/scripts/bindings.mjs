// Generates the Wails bindings (frontend/wailsjs) from the Go code with
// `wails generate module`, unless they are newer than every Go file of
// app/, app/view/ (the read model, whose types the bindings return) and
// main.go. They are generated, so they are not committed.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const frontend = join(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(frontend, '..');
const marker = join(frontend, 'wailsjs', 'go', 'models.ts');

const goFiles = [join(root, 'main.go'), ...['app', join('app', 'view')].flatMap((dir) => readdirSync(join(root, dir))
  .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'))
  .map((f) => join(root, dir, f)))];
const newest = Math.max(...goFiles.map((f) => statSync(f).mtimeMs));
if (existsSync(marker) && statSync(marker).mtimeMs >= newest && !process.env.SPARK_REGEN_BINDINGS) {
  process.exit(0);
}
// main.go embeds frontend/dist; it must exist before the Go code compiles.
if (!existsSync(join(frontend, 'dist', 'index.html'))) {
  mkdirSync(join(frontend, 'dist'), { recursive: true });
  writeFileSync(join(frontend, 'dist', 'index.html'), '<!doctype html>\n');
}
const gopath = execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).trim();
const wails = [join(gopath, 'bin', 'wails'), 'wails'].find((w) => w === 'wails' || existsSync(w));
console.log('generating the Wails bindings (wails generate module)');
execFileSync(wails, ['generate', 'module'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
