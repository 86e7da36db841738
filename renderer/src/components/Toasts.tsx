// The toasts: a toast's first line as its text, any further lines (every problem of a rejected config) as a list.
import { useToasts } from '../hooks/toasts.tsx';

export function Toasts() {
  const { toasts, dismiss } = useToasts();
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((toast) => {
        const [first, ...more] = toast.text.split('\n');
        return (
          <div key={toast.id} className={`toast ${toast.kind}`} role={toast.kind === 'error' ? 'alert' : 'status'} data-testid={`toast-${toast.kind}`}>
            <div className="toast-text">
              {first}
              {more.length > 0 && (
                <ul className="toast-lines">
                  {more.map((line, i) => (
                    <li key={i}>{line}</li>
                  ))}
                </ul>
              )}
            </div>
            <button type="button" className="ghost" aria-label="Dismiss" onClick={() => dismiss(toast.id)}>
              ✕
            </button>
          </div>
        );
      })}
    </div>
  );
}
