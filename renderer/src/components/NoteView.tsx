// One note: header (title, path, date, tags, open-in actions), properties, the rendered body with the cited lines
// highlighted, and its backlinks, outgoing links and related notes. Reloads when the file changes on disk.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { NoteView as Note } from '../../../core/contract/appApi.ts';
import { useApi } from '../api/ApiContext.tsx';
import { formatDate, lineRange } from '../format.ts';
import { useToasts } from '../hooks/toasts.tsx';
import { BACK_KEYS } from '../keyboard.ts';
import { LinkList } from './LinkList.tsx';
import { NoteBody, type Citation } from './NoteBody.tsx';
import { PropertiesTable } from './PropertiesTable.tsx';

export interface NoteTarget {
  path: string;
  citation: Citation | null;
  heading: string | null;
  headerPath?: string[];
}

interface NoteViewProps {
  target: NoteTarget;
  vault: string | null;
  /** Moves when this note changed on disk. */
  reloadKey: number;
  canGoBack: boolean;
  onBack(): void;
  onClose(): void;
  onNavigate(target: NoteTarget): void;
}

export function NoteView({ target, vault, reloadKey, canGoBack, onBack, onClose, onNavigate }: NoteViewProps) {
  const { api, desktop } = useApi();
  const { notify, reportError } = useToasts();
  const [note, setNote] = useState<Note | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    setError(null);
    api.getNote(target.path).then(
      (loaded) => live && setNote(loaded),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [api, target.path, reloadKey]);

  // Once the title has scrolled away, the sticky toolbar names the note.
  const titleRef = useRef<HTMLHeadingElement>(null);
  const [titleHidden, setTitleHidden] = useState(false);
  useEffect(() => {
    const title = titleRef.current;
    if (!title) return;
    const observer = new IntersectionObserver(([entry]) => setTitleHidden(!entry.isIntersecting), { root: title.closest('.note-scroll'), rootMargin: '-56px 0px 0px 0px' });
    observer.observe(title);
    return () => observer.disconnect();
  }, [note]);

  const noBlockRefs = useMemo(() => ({}), []);

  if (error) {
    return (
      <div className="note-view" data-testid="note-view">
        <div className="empty-state">
          <h2>Cannot show {target.path}</h2>
          <p className="error-text">{error}</p>
        </div>
      </div>
    );
  }
  if (!note || note.path !== target.path) return <div className="note-view loading" data-testid="note-view" aria-busy="true" />;

  const open = (path: string, heading: string | null = null) => onNavigate({ path, citation: null, heading });
  const filePath = vault ? `${vault.replace(/[\\/]$/, '')}/${note.path}` : note.path;

  return (
    <article className="note-view" data-testid="note-view">
      <div className="note-scroll">
        <div className={`note-toolbar${titleHidden ? ' scrolled' : ''}`}>
          {canGoBack && (
            <button type="button" className="ghost" onClick={onBack} aria-label="Back" title={`Back (${BACK_KEYS})`}>
              ← Back
            </button>
          )}
          {titleHidden && <span className="toolbar-title">{note.title}</span>}
          <div className="spacer" />
          {desktop ? (
            <button type="button" onClick={() => desktop.openInEditor(note.path).catch((e: unknown) => reportError('Could not open the editor', e))}>
              Open in editor
            </button>
          ) : (
            <code className="file-path" title={`${filePath}\n(opening an editor needs the desktop app)`} data-testid="note-file-path">
              {note.path}
            </code>
          )}
          {note.obsidianUrl && (
            <a className="button" href={note.obsidianUrl} target={desktop ? '_blank' : undefined} rel="noreferrer">
              Open in Obsidian
            </a>
          )}
          <button type="button" className="ghost icon-button" onClick={onClose} aria-label="Close the note" title="Close the note (Esc)" data-testid="close-note">
            ×
          </button>
        </div>
        <header className="note-header">
          <h1 className="note-title" ref={titleRef}>
            {note.title}
          </h1>
          <div className="note-meta">
            <span className="note-path" title={filePath} data-testid="note-path">
              {note.path}
            </span>
            <span>modified {formatDate(note.modified)}</span>
            {target.citation && (
              <span className="cited-lines" data-testid="cited-lines">
                cited {lineRange(target.citation.startLine, target.citation.endLine)}
              </span>
            )}
          </div>
          {note.tags.length > 0 && (
            <ul className="tags">
              {note.tags.map((tag) => (
                <li key={tag}>#{tag}</li>
              ))}
            </ul>
          )}
        </header>
        <PropertiesTable properties={note.properties} />
        <NoteBody
          path={note.path}
          text={note.text}
          bodyStart={note.bodyStart}
          outline={note.outline}
          links={note.links}
          blockRefs={note.blockRefs ?? noBlockRefs}
          citation={target.citation}
          heading={target.heading}
          onNavigate={open}
          onUnresolved={(t) => notify('info', `"${t}" is not a note in this vault.`)}
        />
        <footer className="note-links">
          <LinkList title="Backlinks" testId="backlinks" links={note.backlinks} empty="No note links here." onOpen={(p) => open(p)} />
          <LinkList title="Outgoing links" testId="outgoing" links={note.outgoing} empty="This note links to no other note." onOpen={(p) => open(p)} />
          <LinkList title="Related notes" testId="related" links={note.related} empty="Nothing similar found." onOpen={(p) => open(p)} />
        </footer>
      </div>
    </article>
  );
}
