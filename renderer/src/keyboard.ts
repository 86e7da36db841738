// The app's keyboard shortcuts, in one place: what the handler in App matches and what tooltips say.
//   Ctrl/Cmd-K   focus the search box
//   Alt-S        Search mode        Alt-A   Ask mode          (Option on a Mac)
//   Alt-←        Back to the previous note (also Cmd-[ on a Mac)
//   Esc          in the box: clear the query; with it empty (or outside a field), close the open note
// Alt-letter shortcuts are matched by key position (event.code), so that a Mac's Option-S ("ß") still counts.

export const isMac = typeof navigator !== 'undefined' && /Mac/i.test(navigator.platform);

const ALT = isMac ? '⌥' : 'Alt+';
export const FOCUS_KEYS = isMac ? '⌘K' : 'Ctrl+K';
export const SEARCH_KEYS = `${ALT}S`;
export const ASK_KEYS = `${ALT}A`;
export const BACK_KEYS = isMac ? `${ALT}← or ⌘[` : `${ALT}←`;

export type Shortcut = 'focus' | 'search' | 'ask' | 'back';

/** The shortcut a key press is, if any. */
export function shortcutOf(event: KeyboardEvent): Shortcut | null {
  const mod = event.ctrlKey || event.metaKey;
  if (mod && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 'k') return 'focus';
  if (event.altKey && !mod && !event.shiftKey) {
    if (event.code === 'KeyS') return 'search';
    if (event.code === 'KeyA') return 'ask';
    if (event.key === 'ArrowLeft') return 'back';
  }
  if (isMac && event.metaKey && !event.altKey && !event.ctrlKey && event.key === '[') return 'back';
  return null;
}

/** Focus is in a field where Esc and letters belong to the field. */
export function inField(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}
