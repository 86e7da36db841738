// The keys of a text field with a list of suggestions under it (an ARIA combobox and its listbox), for the tag
// suggestions and the vault path completions alike: ↑/↓ move the highlight, Tab or Enter accept the highlighted
// suggestion, Esc closes the list. Without a highlight, Tab and Enter keep their usual meaning.
import type { KeyboardEvent } from 'react';

export type ListboxAction = { type: 'move'; active: number } | { type: 'accept'; index: number } | { type: 'close' };

/** What `event` does to a list of `count` suggestions whose highlight is `active` (-1: none); null when nothing. */
export function listboxAction(event: KeyboardEvent, active: number, count: number): ListboxAction | null {
  if (count === 0 || event.altKey || event.ctrlKey || event.metaKey) return null;
  switch (event.key) {
    case 'ArrowDown':
      return { type: 'move', active: (active + 1) % count };
    case 'ArrowUp':
      return { type: 'move', active: active <= 0 ? count - 1 : active - 1 };
    case 'Tab':
    case 'Enter':
      return active >= 0 && active < count && !event.shiftKey ? { type: 'accept', index: active } : null;
    case 'Escape':
      return { type: 'close' };
    default:
      return null;
  }
}

/** The id of a listbox's option, for aria-activedescendant. */
export const optionId = (listId: string, index: number) => `${listId}-option-${index}`;
