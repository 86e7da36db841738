// The files that could not be indexed, each with its reason; then the notes indexed with a warning (how they were read).
import { useEffect, useRef } from 'react';
import type { FileStatus } from '../../../core/contract/appApi.ts';

export function FailedFiles({ files, onClose }: { files: FileStatus[]; onClose(): void }) {
  const failed = files.filter((f) => f.state === 'failed');
  const warned = files.filter((f) => f.state === 'indexed' && f.reason);
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
        {failed.length === 0 ? <p className="muted">Every file was indexed.</p> : <FileList files={failed} />}
        {warned.length > 0 && (
          <>
            <h3>Indexed, with a warning</h3>
            <FileList files={warned} testId="warned-files" />
          </>
        )}
      </div>
    </div>
  );
}

function FileList({ files, testId }: { files: FileStatus[]; testId?: string }) {
  return (
    <ul className="failed-list" data-testid={testId}>
      {files.map((file) => (
        <li key={file.path}>
          <code>{file.path}</code>
          <span>{file.reason ?? 'unknown reason'}</span>
        </li>
      ))}
    </ul>
  );
}
