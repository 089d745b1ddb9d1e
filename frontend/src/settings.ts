import { backend, errorText, type SettingsView } from './backend';
import { toastError, errorBlock } from './feedback';
import { h, clear, toast, detailsOf } from './dom';
import type { Screen } from './screen';

/** SettingsScreen: which engine, Pippa for the local engine, data folder. */
export class SettingsScreen implements Screen {
  readonly el: HTMLElement;
  private body = h('div', { class: 'settings-body' });

  constructor(private readonly changed: () => void) {
    this.el = h('section', { class: 'screen settings', 'aria-label': 'Settings' }, h('h1', {}, 'Settings'), this.body);
  }

  show(): void {
    void this.load();
  }

  private async load(): Promise<void> {
    try {
      this.render(await backend.settings.get());
    } catch (e) {
      clear(this.body, errorBlock(e));
    }
  }

  private render(s: SettingsView): void {
    const local = h('input', { type: 'radio', name: 'engine', id: 'engine-local', value: 'local' });
    const remote = h('input', { type: 'radio', name: 'engine', id: 'engine-remote', value: 'remote' });
    local.checked = s.engine !== 'remote';
    remote.checked = s.engine === 'remote';
    const url = h('input', { id: 'remote-url', type: 'url', placeholder: 'http://192.168.1.20:8787', autocomplete: 'off', spellcheck: 'false' });
    const token = h('input', { id: 'remote-token', type: 'password', autocomplete: 'off', spellcheck: 'false' });
    url.value = s.remoteURL;
    token.value = s.remoteToken;
    const result = h('p', { class: 'test-result', 'aria-live': 'polite', 'data-testid': 'test-result' });
    const remoteFields = h(
      'div',
      { class: 'fields' },
      h('label', { for: 'remote-url' }, 'Engine address'),
      url,
      h('label', { for: 'remote-token' }, 'Token'),
      token,
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'button', onclick: () => void this.test(url.value, token.value, result) }, 'Test connection'),
        h('button', { type: 'button', class: 'primary', 'data-testid': 'use-remote', onclick: () => void this.useRemote(url.value, token.value) }, 'Use this engine'),
      ),
      result,
    );
    const sync = () => {
      remoteFields.hidden = !remote.checked;
    };
    sync();
    local.addEventListener('change', () => {
      sync();
      if (local.checked && s.engine === 'remote') void this.useLocal();
    });
    remote.addEventListener('change', sync);

    const pURL = h('input', { id: 'pippa-url', type: 'url', placeholder: s.ollamaURL, spellcheck: 'false' });
    const pModel = h('input', { id: 'pippa-model', type: 'text', placeholder: 'llava', spellcheck: 'false' });
    const pKey = h('input', { id: 'pippa-key', type: 'password', autocomplete: 'off', placeholder: 'Not needed for Ollama' });
    pURL.value = s.pippa.url;
    pModel.value = s.pippa.model;
    pKey.value = s.pippa.key ?? '';

    clear(
      this.body,
      h(
        'fieldset',
        {},
        h('legend', {}, 'Where your moments are kept'),
        h('div', { class: 'choice' }, local, h('label', { for: 'engine-local' }, h('strong', {}, 'This computer'), h('span', { class: 'muted' }, ' only'))),
        h('div', { class: 'choice' }, remote, h('label', { for: 'engine-remote' }, h('strong', {}, 'Family engine'), h('span', { class: 'muted' }, ': a computer the family shares, so everyone’s moments are in one place'))),
        remoteFields,
        s.localURL ? detailsOf(`The engine on this computer answers at ${s.localURL} (only this computer can reach it).`) : null,
      ),
      h(
        'fieldset',
        { disabled: s.engine === 'remote' },
        h('legend', {}, 'Pippa, who reads your photos'),
        h('p', {}, s.engine === 'remote'
          ? 'The family engine has its own Pippa; whoever looks after it sets her up.'
          : 'Pippa is a program that looks at each photo and explains it. The usual choice is Ollama on this computer, which works without the internet: install it, then press “Use Ollama on this computer”.'),
        detailsOf('Any OpenAI-compatible chat-completions server works: its address (ending in /v1), the name of a model that reads images, and a key if it needs one.'),
        h('div', { class: 'fields' },
          h('label', { for: 'pippa-url' }, 'Address'), pURL,
          h('label', { for: 'pippa-model' }, 'Model'), pModel,
          h('label', { for: 'pippa-key' }, 'Key'), pKey),
        h(
          'div',
          { class: 'row' },
          h('button', { type: 'button', onclick: () => { pURL.value = s.ollamaURL; if (!pModel.value) pModel.value = 'llava'; pKey.value = ''; } }, 'Use Ollama on this computer'),
          h('button', { type: 'button', class: 'primary', onclick: () => void this.savePippa(pURL.value, pModel.value, pKey.value) }, 'Save Pippa'),
        ),
      ),
      h(
        'fieldset',
        {},
        h('legend', {}, 'Your data'),
        h('p', {}, 'Spark keeps everything in ', h('code', { 'data-testid': 'data-dir' }, s.dataDir), '.'),
        h(
          'div',
          { class: 'row' },
          h('button', { type: 'button', onclick: () => void backend.settings.openDataFolder().catch((e: unknown) => toastError(e)) }, 'Open data folder'),
          h('button', { type: 'button', onclick: () => void backend.settings.openLogFolder().catch((e: unknown) => toastError(e)) }, 'Open log folder'),
        ),
      ),
    );
  }

  private async test(url: string, token: string, out: HTMLElement): Promise<void> {
    out.textContent = 'Testing…';
    out.className = 'test-result';
    try {
      const r = await backend.settings.test(url, token);
      out.textContent = r.message;
      out.classList.add(r.ok ? 'ok' : 'bad');
    } catch (e) {
      out.textContent = errorText(e);
      out.classList.add('bad');
    }
  }

  private async useRemote(url: string, token: string): Promise<void> {
    try {
      this.render(await backend.settings.useRemote(url, token));
      toast('Spark now keeps your moments on the family engine. Photos waiting here will go there.');
      this.changed();
    } catch (e) {
      toastError(e);
    }
  }

  private async useLocal(): Promise<void> {
    try {
      this.render(await backend.settings.useLocal());
      toast('Spark now keeps your moments on this computer.');
      this.changed();
    } catch (e) {
      toastError(e);
    }
  }

  private async savePippa(url: string, model: string, key: string): Promise<void> {
    try {
      this.render(await backend.settings.setPippa({ url, model, key }));
      toast('Saved. Pippa reads the next photos with these settings.');
    } catch (e) {
      toastError(e);
    }
  }
}
