// The harness's stand-in for the Wails runtime in a plain browser: it
// defines window.go.<package>.<Struct>.<Method> and window.runtime the way
// Wails' own runtime does, over the harness's HTTP RPC and server-sent
// events, so the unchanged UI code (and its generated bindings) runs.
(() => {
  const listeners = new Map();
  const dispatch = (name, data) => {
    const ls = listeners.get(name) || [];
    for (const l of [...ls]) {
      l.cb(...data);
      if (l.max > 0 && --l.max === 0) ls.splice(ls.indexOf(l), 1);
    }
  };
  const off = (name) => listeners.delete(name);
  const noop = () => {};
  window.runtime = {
    EventsOnMultiple(name, cb, max) {
      const l = { cb, max };
      if (!listeners.has(name)) listeners.set(name, []);
      listeners.get(name).push(l);
      return () => {
        const ls = listeners.get(name) || [];
        const i = ls.indexOf(l);
        if (i >= 0) ls.splice(i, 1);
      };
    },
    EventsOff: (name, ...more) => [name, ...more].forEach(off),
    EventsOffAll: () => listeners.clear(),
    EventsEmit: (name, ...data) => dispatch(name, data),
    OnFileDrop(cb) { window.__sparkFileDrop = cb; },
    OnFileDropOff() { delete window.__sparkFileDrop; },
    CanResolveFilePaths: () => false,
    ResolveFilePaths: noop,
    LogPrint: noop, LogTrace: noop, LogDebug: noop, LogInfo: noop, LogWarning: noop, LogError: noop, LogFatal: noop,
    BrowserOpenURL: (u) => window.open(u),
    Environment: () => Promise.resolve({ buildType: 'harness', platform: 'browser', arch: '' }),
    WindowSetTitle: (t) => { document.title = t; },
    Quit: noop, Hide: noop, Show: noop,
  };
  const events = new EventSource('/events');
  events.onmessage = (m) => {
    const { name, data } = JSON.parse(m.data);
    dispatch(name, [data]);
  };
  const call = (struct, method) => async (...args) => {
    const r = await fetch(`/rpc/${struct}/${method}`, { method: 'POST', body: JSON.stringify(args) });
    if (!r.ok) throw new Error(await r.text());
    const j = await r.json();
    if (j.error) throw j.error;
    return j.result;
  };
  const pkg = (name) => new Proxy({}, { get: (_, struct) => new Proxy({}, { get: (_, method) => call(struct, method) }) });
  window.go = new Proxy({}, { get: (_, name) => pkg(name) });
})();
