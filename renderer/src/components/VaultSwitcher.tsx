// The vault switcher in the top bar: the open vault's name with a chevron (visibly a control), opening a menu of
// the recent vaults and "Open another folder…". Esc or a click elsewhere closes it; ↑/↓ move through its items.
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { baseName } from '../format.ts';

interface VaultSwitcherProps {
  vault: string;
  recent: readonly string[];
  /** The vault being opened, if any: shown in place of the current one, with a spinner. */
  opening: string | null;
  onOpen(path: string): void;
  onOther(): void;
}

export function VaultSwitcher({ vault, recent, opening, onOpen, onOther }: VaultSwitcherProps) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const others = recent.filter((v) => v !== vault);

  useEffect(() => {
    if (!open) return;
    const onDown = (event: MouseEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    window.addEventListener('mousedown', onDown);
    root.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    return () => window.removeEventListener('mousedown', onDown);
  }, [open]);

  const onMenuKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = [...(root.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (event.key === 'Escape') {
      setOpen(false);
      root.current?.querySelector<HTMLElement>('.vault-button')?.focus();
    } else if (event.key === 'ArrowDown') items[(at + 1) % items.length]?.focus();
    else if (event.key === 'ArrowUp') items[(at - 1 + items.length) % items.length]?.focus();
    else return;
    event.preventDefault();
    event.stopPropagation();
  };

  const shown = opening ?? vault;
  return (
    <div className="vault-switcher" ref={root} onKeyDown={onMenuKey}>
      <button
        type="button"
        className={`vault-button${open ? ' active' : ''}`}
        title={`${shown}\nSwitch vault`}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid="vault-button"
      >
        <svg viewBox="0 0 20 20" width="14" height="14" aria-hidden="true">
          <path fill="currentColor" d="M2 5.5A1.5 1.5 0 013.5 4h4l2 2h7A1.5 1.5 0 0118 7.5v7a1.5 1.5 0 01-1.5 1.5h-13A1.5 1.5 0 012 14.5z" opacity="0.8" />
        </svg>
        <span className="vault-name" data-testid="vault-name">
          {baseName(shown)}
        </span>
        {opening && <span className="spinner small" aria-label="Opening" />}
        <svg className="chevron" viewBox="0 0 20 20" width="12" height="12" aria-hidden="true">
          <path d="M5 8l5 5 5-5" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
      </button>
      {open && (
        <div className="vault-menu" role="menu" aria-label="Vaults" data-testid="vault-menu">
          <div className="vault-menu-current" title={vault}>
            <span className="muted small">Open now</span>
            <span className="vault-menu-name">{baseName(vault)}</span>
            <span className="muted small path">{vault}</span>
          </div>
          {others.length > 0 && <div className="vault-menu-heading muted small">Recent vaults</div>}
          {others.map((path) => (
            <button
              key={path}
              type="button"
              role="menuitem"
              className="vault-menu-item"
              title={path}
              data-testid="recent-vault"
              onClick={() => {
                setOpen(false);
                onOpen(path);
              }}
            >
              <span className="vault-menu-name">{baseName(path)}</span>
              <span className="muted small path">{path}</span>
            </button>
          ))}
          <button
            type="button"
            role="menuitem"
            className="vault-menu-item other"
            data-testid="open-other-vault"
            onClick={() => {
              setOpen(false);
              onOther();
            }}
          >
            Open another folder…
          </button>
        </div>
      )}
    </div>
  );
}
