// What the window shows, told to the Go side (app/onscreen.go) so the
// small copies on screen are never removed to make room: each part (the
// Moments screen's tiles in view, the open moment) says its ids, and the
// union goes over at most twice a second, only when it changed.
import { backend } from './backend';

const parts = new Map<string, string[]>();
let timer = 0;
let sent = '';

/** showing says which moments a part of the window shows now ([] for none). */
export function showing(part: string, ids: string[]): void {
  parts.set(part, ids);
  if (timer) return;
  timer = window.setTimeout(() => {
    timer = 0;
    const ids = [...new Set([...parts.values()].flat())].sort();
    const key = ids.join(' ');
    if (key === sent) return;
    sent = key;
    backend.moments.onScreen(ids).catch(() => {
      sent = ''; // told again next time
    });
  }, 500);
}
