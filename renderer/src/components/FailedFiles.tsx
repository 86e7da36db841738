// The files that could not be indexed, each with its reason.
import { useEffect, useRef } from 'react';
import type { FileStatus } from '../../../core/contract/appApi.ts';

export function FailedFiles({ files, onClose }: { files: FileStatus[]; onClose(): void }) {
  const failed = files.filter((f) => f.state === 'failed');
  const close = useRef<HTMLButtonElement>(null);
  // Keyboard: focus starts on Close, Esc closes.
  useEffect(() => {
    close.current?.focus();
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <div className="overlay" role="dialog" aria-modal="true" aria-label="Files that failed" onClick={onClose}>
      <div className="dialog" onClick={(event) => event.stopPropagation()} data-testid="failed-files">
        <header>
          <h2>Files that could not be indexed</h2>
          <button type="button" className="ghost" onClick={onClose} aria-label="Close" ref={close}>
            ✕
          </button>
        </header>
        {failed.length === 0 ? (
          <p className="muted">Every file was indexed.</p>
        ) : (
          <ul className="failed-list">
            {failed.map((file) => (
              <li key={file.path}>
                <code>{file.path}</code>
                <span>{file.reason ?? 'unknown reason'}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
