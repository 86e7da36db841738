// Every failure the user should know about ends up here: failed api calls, `error` events, rejected configs.
// Errors stay until dismissed; information fades after a few seconds.
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  text: string;
}

interface ToastApi {
  toasts: Toast[];
  notify(kind: Toast['kind'], text: string): void;
  /** Reports a failed call: "Search failed: <reason>". */
  reportError(what: string, error: unknown): void;
  dismiss(id: number): void;
  /** Dismisses every toast whose text starts so (a problem that is fixed, or told again in newer words). */
  dismissStartingWith(prefix: string): void;
}

const ToastContext = createContext<ToastApi | null>(null);
const INFO_MS = 5000;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((t) => t.id !== id)), []);
  const dismissStartingWith = useCallback((prefix: string) => setToasts((list) => list.filter((t) => !t.text.startsWith(prefix))), []);
  const notify = useCallback(
    (kind: Toast['kind'], text: string) => {
      const id = nextId.current++;
      // The same message twice in a row is shown once.
      setToasts((list) => (list.some((t) => t.text === text && t.kind === kind) ? list : [...list.slice(-4), { id, kind, text }]));
      if (kind === 'info') setTimeout(() => dismiss(id), INFO_MS);
    },
    [dismiss],
  );
  const reportError = useCallback((what: string, error: unknown) => notify('error', `${what}: ${error instanceof Error ? error.message : String(error)}`), [notify]);
  const value = useMemo(() => ({ toasts, notify, reportError, dismiss, dismissStartingWith }), [toasts, notify, reportError, dismiss, dismissStartingWith]);
  return <ToastContext.Provider value={value}>{children}</ToastContext.Provider>;
}

export function useToasts(): ToastApi {
  const value = useContext(ToastContext);
  if (!value) throw new Error('useToasts outside <ToastProvider>');
  return value;
}
