/** Screen is one of the window's tabs: its element and what to do each
 * time it is shown. main.ts builds them; each screen module implements it. */
export interface Screen {
  readonly el: HTMLElement;
  /** show is called each time the screen becomes visible, and again
   * when its tab is clicked while it shows (again is then true). */
  show(again?: boolean): void;
}

/** Tab names the screens, in the order of the tabs. */
export type Tab = 'capture' | 'moments' | 'phrases' | 'outbox' | 'settings';
