// Backlinks, outgoing links or related notes: note titles that open in the app.
import type { NoteLinkView } from '../../../core/contract/appApi.ts';

interface LinkListProps {
  title: string;
  links: NoteLinkView[];
  empty: string;
  onOpen(path: string): void;
  testId: string;
}

export function LinkList({ title, links, empty, onOpen, testId }: LinkListProps) {
  return (
    <section className="link-list" data-testid={testId}>
      <h3>
        {title} <span className="count">{links.length}</span>
      </h3>
      {links.length === 0 ? (
        <p className="muted small">{empty}</p>
      ) : (
        <ul>
          {links.map((link) => (
            <li key={link.path}>
              <button type="button" className="link-button" title={link.path} onClick={() => onOpen(link.path)}>
                {link.title}
              </button>
              <span className="muted small path">{link.path}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
