import './style.css';
import { backend, markPaint, type Status } from './backend';
import { h, clear, rehomeToasts, sentence, toast } from './dom';
import { tabWords, appWords, outboxLine, total, engineBanner, engineStateWords, engineStateShort, bannerDetails, startWords, badgeWords, startProblem, offsiteBarWords, offsiteWords, broughtBackWords, type EngineState } from './words';
import { CaptureScreen } from './capture';
import { MomentsScreen } from './moments';
import { PhrasesScreen } from './phrases';
import { OutboxScreen, engineAnswers, onOutboxStatus, outboxStatus } from './outbox';
import { SettingsScreen } from './settings';
import type { Screen, Tab } from './screen';
import { SearchScreen } from './search';
import { SyncLine } from './syncstatus';
import { offerWords } from './wordsreader';
import { placeSeen, setPippaOpener } from './place';
const labels: Record<Tab, string> = tabWords;

class App {
  private screens: Record<Tab, Screen>;
  private settings: SettingsScreen;
  private tabs = new Map<Tab, HTMLButtonElement>();
  private banner = h('div', { class: 'banner', role: 'status', 'aria-live': 'polite', hidden: true });
  /** bannerOpen: Details of the one-line banner (narrow window) is open. */
  private bannerOpen = false;
  private statusBar = h('footer', { class: 'statusbar', 'aria-label': appWords.status });
  private problem = h('section', { class: 'problem', role: 'alert', hidden: true });
  private main = h('main', { id: 'main', tabindex: -1 });
  private nav = h('nav', { class: 'tabs', id: 'tabs', 'aria-label': appWords.brand });
  private outboxBadge = h('span', { class: 'badge', hidden: true });
  // In a narrow window (200% zoom) the tabs fold behind this button, so
  // the header stays one row (style.css shows it).
  private menuBadge = h('span', { class: 'badge', hidden: true });
  private menu = h('button', { type: 'button', class: 'menu-toggle', 'aria-expanded': 'false', 'aria-controls': 'tabs', 'data-testid': 'menu' }, h('span', { 'aria-hidden': 'true' }, '☰ '), appWords.menu, ' ', this.menuBadge);
  private header = h('header', { class: 'top' });
  private syncLine = new SyncLine(() => this.go('settings'));
  private search = new SearchScreen();
  private searchBox = h('input', {
    type: 'search',
    id: 'search',
    class: 'search-box',
    placeholder: appWords.searchPlaceholder,
    'aria-label': appWords.searchLabel,
    autocomplete: 'off',
    spellcheck: 'false',
    'data-testid': 'search-box',
  });
  private tab: Tab = 'capture';
  private searchTimer = 0;
  status: Status | null = null;
  private acted = false; // the person chose a tab or started adding photos

  /** moments says the first page of Moments, read before, has some:
   * the window opens on the timeline at once. */
  constructor(root: HTMLElement, moments: boolean) {
    const go = (t: Tab) => this.go(t);
    this.settings = new SettingsScreen(() => void this.refreshStatus());
    this.screens = {
      capture: new CaptureScreen(go),
      // The empty Moments' "Add photos" does what the header's does.
      moments: new MomentsScreen(() => { this.acted = true; this.go('capture'); }),
      phrases: new PhrasesScreen(),
      outbox: new OutboxScreen(go),
      settings: this.settings,
    };
    const nav = this.nav;
    for (const t of Object.keys(labels) as Tab[]) {
      const b = h('button', { type: 'button', class: 'tab', 'data-tab': t, title: `${labels[t]} (Alt+${Object.keys(labels).indexOf(t) + 1})`, onclick: () => { this.acted = true; this.searchBox.value = ''; this.fold(); this.go(t); } }, labels[t]);
      if (t === 'outbox') b.append(this.outboxBadge);
      this.tabs.set(t, b);
      nav.append(b);
    }
    const header = this.header;
    header.append(
      h('div', { class: 'brand' }, h('span', { class: 'spark-mark', 'aria-hidden': 'true' }, '✦'), h('span', {}, appWords.brand)),
      this.menu,
      nav,
      h('div', { class: 'search-wrap', role: 'search' }, this.searchBox),
    );
    this.menu.addEventListener('click', () => {
      if (this.menu.getAttribute('aria-expanded') === 'true') this.fold();
      else {
        this.menu.setAttribute('aria-expanded', 'true');
        header.classList.add('menu-open');
        this.tabs.get(this.tab)?.focus();
      }
    });
    header.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && header.classList.contains('menu-open')) {
        e.preventDefault();
        this.fold();
        this.menu.focus();
      }
    });
    // A click elsewhere folds the menu.
    document.addEventListener('pointerdown', (e) => {
      if (!header.contains(e.target as Node)) this.fold();
    });
    this.searchBox.addEventListener('input', () => {
      clearTimeout(this.searchTimer);
      this.searchTimer = window.setTimeout(() => this.find(this.searchBox.value), 200);
    });
    this.searchBox.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.searchBox.value) {
        e.preventDefault();
        this.searchBox.value = '';
        this.find('');
      } else if (e.key === 'Enter') {
        clearTimeout(this.searchTimer);
        this.find(this.searchBox.value);
      }
    });
    for (const s of [...Object.values(this.screens), this.search]) {
      s.el.hidden = true;
      this.main.append(s.el);
    }
    clear(root, h('a', { href: '#main', class: 'skip' }, appWords.skip), header, this.problem, this.banner, this.main, this.statusBar);
    this.go(moments ? 'moments' : 'capture');
    if (!moments) void this.home();
    backend.onCapture(() => (this.acted = true));
    backend.onOutbox((e) => {
      if (['added', 'done', 'parked', 'waiting', 'removed', 'retried'].includes(e.kind)) this.soon();
    });
    // A note or change made, sent, parked or discarded changes what the
    // status bar counts: at once, not at the next poll.
    backend.onWrite((e) => {
      this.soon();
      // Sent at once or by the Outbox later, a change that reached a
      // moment deleted elsewhere brought it back: said once, when sent.
      if (e.state === 'sent' && e.brought_back) toast(broughtBackWords(e.kind), 'info');
    });
    // A sync that got through while the bar says the engine is away: the
    // bar asks again now, not at its next poll.
    backend.onSync((s) => {
      if (s.state === 'uptodate' && this.status && !this.status.reachable) this.soon();
    });
    // Another engine: the status bar says where moments are kept at once
    // (each screen reads its own again, backend.onEngine).
    backend.onEngine(() => void this.refreshStatus());
    document.addEventListener('spark:status', () => this.soon());
    // What the bar and the banner say of the outbox is the outbox's one
    // status (outbox.ts), the Outbox screen's too.
    onOutboxStatus(() => {
      if (this.status) this.renderStatus(this.status);
    });
    // Zoomed in or out past the fold: the bar's words change length.
    narrowWindow.addEventListener('change', () => {
      if (this.status) this.renderStatus(this.status);
    });
    // Alt+1 to Alt+5 open the tabs; Ctrl+F (⌘F) goes to the search box.
    document.addEventListener('keydown', (e) => {
      if (document.querySelector('dialog[open]')) return;
      const order = Object.keys(labels) as Tab[];
      const n = Number(e.key);
      if (e.altKey && !e.ctrlKey && !e.metaKey && n >= 1 && n <= order.length) {
        e.preventDefault();
        this.acted = true;
        this.searchBox.value = '';
        this.go(order[n - 1] as Tab);
        this.focusScreen();
      } else if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'f') {
        e.preventDefault();
        this.searchBox.focus();
        this.searchBox.select();
      }
    });
    void this.refreshStatus();
    setInterval(() => void this.refreshStatus(), 4000);
    // "Set her up" (a card, a moment) opens Settings at Pippa's section.
    setPippaOpener(() => this.openPippa());
  }

  /** openPippa opens Settings at Pippa's section (SettingsScreen.showPippa). */
  private openPippa(): void {
    this.acted = true;
    this.searchBox.value = '';
    this.settings.showPippa();
    this.go('settings');
  }

  /** fold closes the menu of a narrow window. */
  private fold(): void {
    this.menu.setAttribute('aria-expanded', 'false');
    this.header.classList.remove('menu-open');
  }

  go(t: Tab): void {
    const again = this.tab === t && !this.screens[t].el.hidden && this.search.el.hidden;
    this.tab = t;
    this.search.el.hidden = true;
    for (const [k, b] of this.tabs) {
      if (k === t) b.setAttribute('aria-current', 'page');
      else b.removeAttribute('aria-current');
    }
    for (const [k, s] of Object.entries(this.screens) as [Tab, Screen][]) {
      s.el.hidden = k !== t;
    }
    this.screens[t].show(again);
    // A toast about what was on screen ends with it (dom.ts).
    rehomeToasts();
  }

  /** focusScreen puts the keyboard on the screen just opened: its
   * tile in the Tab order, or else its first control. */
  private focusScreen(): void {
    const tab = this.tab;
    const el = this.screens[tab].el;
    // Moments may still be reading its first page: wait a little for a tile.
    const attempt = (left: number) => {
      if (this.tab !== tab || el.hidden) return;
      const tile = el.querySelector<HTMLElement>('[data-testid=moment-tile][tabindex="0"]');
      if (tile) tile.focus();
      else if (tab === 'moments' && left > 0) window.setTimeout(() => attempt(left - 1), 150);
      else el.querySelector<HTMLElement>('button, input, textarea, select')?.focus();
    };
    window.setTimeout(() => attempt(8), 50);
  }

  /** find shows the results of a search, or the tab again when the box
   * is emptied. */
  private find(q: string): void {
    if (!q.trim()) {
      if (!this.search.el.hidden) this.go(this.tab);
      return;
    }
    this.acted = true;
    for (const b of this.tabs.values()) b.removeAttribute('aria-current');
    for (const s of Object.values(this.screens)) s.el.hidden = true;
    this.search.el.hidden = false;
    rehomeToasts();
    void this.search.run(q.trim());
  }

  /** home opens Moments instead when there already are some: the
   * timeline is what a returning person wants to see first. */
  private async home(): Promise<void> {
    try {
      const page = await backend.moments.page('', 1);
      // Only if the person has not started doing something meanwhile.
      if (page.moments.length > 0 && !this.acted) this.go('moments');
    } catch {
      // Offline or not started: stay on Add photos.
    }
  }

  private timer = 0;
  /** soon refreshes the status shortly, coalescing bursts of events. */
  private soon(): void {
    clearTimeout(this.timer);
    this.timer = window.setTimeout(() => void this.refreshStatus(), 300);
  }

  async refreshStatus(): Promise<void> {
    let st: Status;
    try {
      st = await backend.settings.status();
    } catch {
      return;
    }
    this.status = st;
    // Where moments are kept and whether Pippa is there (place.ts).
    placeSeen(st);
    // The Outbox words what waits from the same answer as the bar.
    engineAnswers(st.ready && st.reachable);
    this.renderStatus(st);
    // The sync line is read after the status (which tells the Go side
    // whether the engine answers), so the bar's two halves agree.
    void this.syncLine.refresh();
  }

  private renderStatus(st: Status): void {
    if (!st.ready) {
      this.problem.hidden = false;
      clear(
        this.problem,
        h('h2', {}, startWords(st.starting)),
        st.starting || !st.problem ? null : sentence(startProblem(st.problem), ''),
      );
    } else {
      this.problem.hidden = true;
    }
    // When Spark could not start, nothing else works: show only the message.
    const stuck = !st.ready && !st.starting;
    this.main.hidden = stuck;
    this.nav.hidden = stuck;
    // The outbox's part, from its one status (the Outbox screen's too):
    // nothing is said of it before that is first read.
    const ob = outboxStatus();
    const waiting = ob ? total(ob.waiting) : 0;
    const parked = ob ? total(ob.parked) : 0;
    const answers = st.ready && st.reachable;
    const said = ob ? outboxLine(ob.waiting, ob.parked, answers, st.engine) : { banner: '', waiting: '', parked: '' };
    const offline = st.ready && !st.reachable;
    // The sync line, the bar's other half, says nothing against this one.
    this.syncLine.agree(answers, waiting);
    this.banner.hidden = !offline;
    this.banner.classList.toggle('refused', st.refused);
    if (offline) {
      const why = engineBanner(st.engine, st.refused);
      // In a narrow window (200% zoom) the banner is one line: why, then
      // the rest behind Details (style.css shows the button there only).
      const toggle = h('button', { type: 'button', class: 'link banner-toggle', 'aria-expanded': String(this.bannerOpen), 'aria-controls': 'banner-more', onclick: () => {
        this.bannerOpen = !this.bannerOpen;
        this.banner.classList.toggle('open', this.bannerOpen);
        toggle.setAttribute('aria-expanded', String(this.bannerOpen));
      } }, bannerDetails);
      this.banner.classList.toggle('open', this.bannerOpen);
      clear(
        this.banner,
        h('strong', {}, `${why.why} `),
        toggle,
        h(
          'span',
          { class: 'banner-more', id: 'banner-more' },
          said.banner,
          why.link ? ' ' : null,
          why.link ? h('button', { type: 'button', class: 'link', onclick: () => this.go('settings') }, why.link) : null,
        ),
      );
    }
    this.outboxBadge.hidden = waiting + parked === 0;
    this.outboxBadge.textContent = String(waiting + parked);
    // Beside "Menu" a bare number says nothing: the menu's count is in
    // words, the same for the eye and for a screen reader.
    this.menuBadge.hidden = this.outboxBadge.hidden;
    const badge = badgeWords(waiting, parked);
    this.menuBadge.textContent = badge.menu;
    this.outboxBadge.setAttribute('aria-label', badge.label);
    const state: EngineState = !st.ready ? 'starting' : st.reachable ? 'connected' : st.refused ? 'refused' : 'offline';
    // A narrow window (200% zoom) keeps the bar to one line: short words.
    const short = narrowWindow.matches;
    // The items wrap among themselves (a narrow window, 200% zoom), with
    // a dot between two on a line (style.css). The version is in Settings,
    // under About Spark: on the bar it was a word for us, not for Dad.
    const items = h(
      'span',
      { class: 'status-items' },
      h(
        'span',
        {},
        h('span', { class: `dot ${state === 'connected' ? 'ok' : 'off'}`, 'aria-hidden': 'true' }),
        ' ',
        h('span', { 'data-testid': 'engine-state', 'data-state': state }, short ? engineStateShort(state, st.engine) : engineStateWords(state, st.engine)),
      ),
      h('span', { 'data-testid': 'waiting', 'data-count': waiting, hidden: said.waiting === '' }, short && waiting ? badge.menu.split(', ')[0] : said.waiting),
      parked > 0
        ? h('button', { type: 'button', class: 'link warn', 'data-testid': 'parked', 'data-count': parked, onclick: () => this.go('outbox') }, said.parked)
        : h('span', { 'data-testid': 'parked', 'data-count': 0, hidden: true }),
      this.syncLine.el,
      this.offsiteLine(st),
    );
    clear(this.statusBar, items);
  }

  /** offsiteLine is the bar's word on the off-site copy of the engine in
   * use, from its health (words.ts offsiteBarWords: more than a day
   * behind, failing for minutes, or a check that found a problem), with
   * the way to Settings' Off-site copy; null while all is well. */
  private offsiteLine(st: Status): HTMLElement | null {
    const said = st.ready ? offsiteBarWords(st.backup, st.backup_failing_since) : '';
    if (!said) return null;
    const open = () => {
      this.go('settings');
      window.requestAnimationFrame(() => document.querySelector('[data-testid=offsite]')?.scrollIntoView({ block: 'start' }));
    };
    return h(
      'span',
      { class: 'sync-line' },
      h('span', { class: 'warn', 'data-testid': 'offsite-bar' }, said),
      h('button', { type: 'button', class: 'link warn', onclick: open }, offsiteWords.whatToDo),
    );
  }
}

/** narrowWindow is the window narrow enough (200% zoom) for the header's
 * tabs to fold behind Menu (style.css, 56rem): the status bar says its
 * short words there. */
const narrowWindow = window.matchMedia('(max-width: 56rem)');

/** firstWait bounds how long the window waits for the first page of
 * Moments before it draws anything: a slow start opens on Add photos, and
 * switches to Moments when the page comes (App.home). */
const firstWait = 1500;
/** MOMENTS_PAGE is the Moments screen's page size (moments.ts), so that its
 * first read is the page read at boot. */
const MOMENTS_PAGE = 200;

const root = document.getElementById('app');
if (root) {
  // The first page of Moments is read before the window draws anything, so
  // the first frame a returning person sees is the timeline with its tiles,
  // not Add photos, then an empty timeline, then tiles. The Moments screen
  // takes that same page (backend.moments.readFirst) for its first read.
  markPaint('script');
  const first = backend.moments.readFirst(MOMENTS_PAGE).then(
    (p) => {
      markPaint('first_page');
      return p.moments.length > 0;
    },
    () => false,
  );
  const late = new Promise<boolean>((r) => setTimeout(() => r(false), firstWait));
  void Promise.race([first, late]).then((moments) => {
    // The Moments screen, if shown, has taken the page by now.
    new App(root, moments);
    markPaint('app');
    backend.moments.forgetFirst();
    // From now on, a photo sent (or synced) without words is read here,
    // whichever screen shows (wordsreader.ts).
    offerWords([]);
  });
}
