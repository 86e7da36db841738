// The rendered note: sanitised DOM inserted as nodes, cited lines highlighted, scrolled to the cited heading,
// and links handled inside the app (wikilinks and vault-relative links, as the core resolved them).
import { useLayoutEffect, useRef, type MouseEvent } from 'react';
import type { BlockRefView, NoteOutlineView } from '../../../core/contract/appApi.ts';
import { isAllowedExternalUrl } from '../../../electron/externalLinks.ts';
import { linesBefore, renderNoteBody } from '../markdown/renderNote.ts';

export interface Citation {
  startLine: number;
  endLine: number;
  /** The line to scroll to when it is not the first cited one (the matched part of a passage of merged sections). */
  focusLine?: number;
}

interface NoteBodyProps {
  path: string;
  text: string;
  bodyStart: number;
  /** The note's outline (property lines, block ids), from the core. */
  outline: NoteOutlineView;
  /** Each link target the note writes → the note it resolves to (from the core). */
  links: Record<string, string | null>;
  /** Where its block references point (from the core). */
  blockRefs: Record<string, BlockRefView>;
  citation: Citation | null;
  heading: string | null;
  onNavigate(path: string, heading: string | null): void;
  onUnresolved(target: string): void;
}

export function NoteBody({ path, text, bodyStart, outline, links, blockRefs, citation, heading, onNavigate, onUnresolved }: NoteBodyProps) {
  const container = useRef<HTMLDivElement>(null);

  // Render and insert: layout effect, so that highlighting and scrolling below find the nodes in place.
  useLayoutEffect(() => {
    const body = container.current!;
    body.replaceChildren(renderNoteBody(text.slice(bodyStart), linesBefore(text, bodyStart), { outline, blockRefs }));
    markLinks(body, links, path);
    markCitation(body, citation);
    const target = (heading && findHeading(body, heading)) || (citation?.focusLine && blockAt(body, citation.focusLine)) || body.querySelector<HTMLElement>('.cited');
    scrollToShow(body.closest<HTMLElement>('.note-scroll'), target);
    if (heading && target) flash(target);
  }, [text, bodyStart, outline, links, blockRefs, citation, heading, path]);

  const onClick = (event: MouseEvent<HTMLDivElement>) => {
    const link = (event.target as Element).closest('a');
    if (!link) return;
    const href = link.getAttribute('href') ?? '';
    // Links the sanitiser let out open in the browser / OS (target=_blank); everything else stays in the app.
    if (isAllowedExternalUrl(href)) return;
    event.preventDefault();
    const blockRef = link.getAttribute('data-block-ref');
    if (blockRef) {
      // A block of this note: scroll to it; of another: open that note at the block.
      const notePath = link.getAttribute('data-block-path') ?? path;
      if (notePath !== path) onNavigate(notePath, `^${blockRef}`);
      else {
        const block = findHeading(container.current!, `^${blockRef}`);
        if (block) {
          block.scrollIntoView({ block: 'start' });
          flash(block);
        }
      }
    } else if (link.hasAttribute('data-wikilink') || link.hasAttribute('data-vault-link')) {
      const resolved = link.dataset.resolved;
      const headingRef = link.dataset.heading || fragmentOf(link.getAttribute('data-vault-link')) || null;
      if (resolved) onNavigate(resolved, headingRef);
      else onUnresolved(linkTarget(link) ?? '');
    } else if (href.startsWith('#') && href.length > 1) {
      const target = findHeading(container.current!, decodeURIComponent(href.slice(1)).replace(/-/g, ' '));
      target?.scrollIntoView({ block: 'start' });
    }
  };

  return <div className="note-body markdown" data-testid="note-body" ref={container} onClick={onClick} />;
}

/** Marks each link resolved (with its note's path) or unresolved, as the core resolved its target. */
function markLinks(body: HTMLElement, links: Record<string, string | null>, path: string): void {
  for (const link of body.querySelectorAll<HTMLAnchorElement>('a[data-wikilink], a[data-vault-link]')) {
    const t = linkTarget(link);
    const found = t ? (Object.hasOwn(links, t) ? links[t] : null) : path; // [[#Heading]] points into this note
    if (found) {
      link.dataset.resolved = found;
      link.title = found;
    } else {
      link.classList.add('unresolved');
      link.title = `No note "${t}" in this vault`;
    }
  }
}

function linkTarget(link: HTMLAnchorElement): string | null {
  const wikilink = link.getAttribute('data-wikilink');
  if (wikilink !== null) return wikilink || null;
  const href = link.getAttribute('data-vault-link') ?? '';
  const withoutFragment = href.split('#')[0];
  try {
    return decodeURIComponent(withoutFragment) || null;
  } catch {
    return withoutFragment || null;
  }
}

function fragmentOf(href: string | null): string | null {
  const hash = href?.indexOf('#') ?? -1;
  return hash >= 0 ? decodeURIComponent(href!.slice(hash + 1)).replace(/-/g, ' ') : null;
}

/**
 * Highlights the cited lines: the outermost blocks lying within them, and a block only partly cited is looked into
 * (an outline's parent block when one child is cited, a list when one item is), highlighted whole only when nothing
 * smaller inside it carries lines.
 */
function markCitation(body: HTMLElement, citation: Citation | null): void {
  if (!citation) return;
  const visit = (parent: Element): boolean => {
    let overlapped = false;
    for (const block of parent.children) {
      const start = Number(block.getAttribute('data-source-line'));
      const end = Number(block.getAttribute('data-source-end'));
      if (!start || !end) {
        // A wrapper without lines of its own (none today): what is inside it counts.
        if (block.querySelector('[data-source-line]') && visit(block)) overlapped = true;
        continue;
      }
      if (start > citation.endLine || end < citation.startLine) continue;
      overlapped = true;
      if ((start >= citation.startLine && end <= citation.endLine) || !visit(block)) block.classList.add('cited');
    }
    return overlapped;
  };
  visit(body);
}

/** The innermost block holding a source line. */
function blockAt(body: HTMLElement, line: number): HTMLElement | null {
  return [...body.querySelectorAll<HTMLElement>('[data-source-line]')].filter((block) => Number(block.dataset.sourceLine) <= line && line <= Number(block.dataset.sourceEnd)).at(-1) ?? null;
}

/** The heading of that name, or for "^id" the block with that Obsidian block id. */
function findHeading(body: HTMLElement, heading: string): HTMLElement | null {
  if (heading.startsWith('^')) {
    // Obsidian ids as written; Logseq uuids lower-cased.
    const id = heading.slice(1);
    return [...body.querySelectorAll<HTMLElement>('[data-block-id]')].find((el) => el.dataset.blockId === id || el.dataset.blockId === id.toLowerCase()) ?? null;
  }
  const wanted = normalise(heading);
  return [...body.querySelectorAll<HTMLElement>('h1, h2, h3, h4, h5, h6')].find((h) => normalise(h.textContent ?? '') === wanted) ?? null;
}

function normalise(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/** Shows `target` near the top of the note pane; a target already visible from the top keeps the note's header in view. */
function scrollToShow(scroller: HTMLElement | null, target: HTMLElement | null) {
  if (!scroller) return;
  scroller.scrollTop = 0;
  if (!target) return;
  const offset = target.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
  // Below the sticky toolbar, with a little air.
  if (offset > scroller.clientHeight * 0.45) scroller.scrollTop = offset - 72;
}

function flash(element: HTMLElement) {
  element.classList.add('flash');
  setTimeout(() => element.classList.remove('flash'), 1600);
}
