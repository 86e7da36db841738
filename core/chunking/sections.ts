import GithubSlugger from 'github-slugger';
import type { Heading } from '../parse/markdownTree.js';
import type { OutlineBlock } from '../parse/outlineBlocks.js';
import { reduceWikilinks } from '../parse/links.js';
import { trim, type Span } from './rangeSplitter.js';

/** A stretch of a note under one heading path: what a chunk is cut from. */
export interface Section {
  start: number;
  end: number;
  headerPath: string[];
  level: number;
  anchor: string;
  /** Set when small sections were merged into this one: the merged sections, in order. */
  parts?: SectionPart[];
}

/** One of the sections a merged section is made of. */
export type SectionPart = Omit<Section, 'parts'>;

/**
 * Cuts the body at every heading: the text before the first heading (if not blank), then one section per heading
 * up to the next heading of any level. Headings are Markdown headings outside lists and heading blocks of an outline
 * (`- ## Usage`, `heading:: true`): a heading block's scope is its children and the following sibling blocks up to a
 * sibling heading of its level or higher, so the text after its scope goes back to the heading above it. Header paths
 * follow the nesting: Markdown headings by level, heading blocks under the headings they sit in; blank headings are left
 * out of them. Spans are trimmed.
 */
export function sectionsAtHeadings(text: string, bodyStart: number, headings: Heading[], blocks: readonly OutlineBlock[] = []): Section[] {
  // Top-level heading blocks are peers of Markdown headings: Logseq writes a page's first block without its bullet
  // (`## Beta 0.10.15` then `- ## Beta 0.10.14`), and the two are siblings.
  const rootHeadings = blocks.filter((b) => b.parent < 0 && b.heading);
  const scopes = [...headings.map((_, i) => docScope(text, headings, i, rootHeadings)), ...blockScopes(text, headings, blocks)].sort((a, b) => a.start - b.start);
  const sections: Section[] = [];
  const slugger = new GithubSlugger();
  const stack: Array<Scope & { rank: number; title: string; anchor: string }> = [];
  let cursor = bodyStart;
  const context = () => {
    const top = stack.at(-1);
    // A heading with no text (`#` alone) still opens a section but names nothing: a citation never shows a blank step.
    return { headerPath: stack.flatMap((s) => (s.title ? [s.title] : [])), level: top?.rank ?? 0, anchor: top?.anchor ?? '' };
  };
  const emit = (to: number) => {
    const span = trim(text, cursor, to);
    if (span) sections.push({ ...span, ...context() });
    cursor = Math.max(cursor, to);
  };
  const closeUpTo = (at: number) => {
    while (stack.length && stack.at(-1)!.end <= at) {
      if (stack.at(-1)!.end > cursor) emit(stack.at(-1)!.end);
      stack.pop();
    }
  };
  for (const scope of scopes) {
    closeUpTo(scope.start);
    emit(scope.start);
    const title = reduceWikilinks(scope.text);
    // Markdown headings rank by level; a heading block one below the heading it sits in.
    const rank = scope.block ? (stack.at(-1)?.rank ?? 0) + 1 : scope.level;
    stack.push({ ...scope, rank, title, anchor: title ? slugger.slug(title) : '' });
  }
  closeUpTo(text.length);
  emit(text.length);
  return sections;
}

interface Scope {
  start: number;
  end: number;
  level: number;
  text: string;
  block: boolean;
}

/** A Markdown heading's scope: up to the next heading of its level or higher, a top-level heading block included. */
function docScope(text: string, headings: Heading[], i: number, rootHeadings: readonly OutlineBlock[]): Scope {
  const heading = headings[i];
  let end = text.length;
  for (let j = i + 1; j < headings.length; j++) {
    if (headings[j].level <= heading.level) {
      end = headings[j].start;
      break;
    }
  }
  let lo = 0;
  let hi = rootHeadings.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rootHeadings[mid].start <= heading.start) lo = mid + 1;
    else hi = mid;
  }
  for (let j = lo; j < rootHeadings.length && rootHeadings[j].start < end; j++) {
    if (rootHeadings[j].heading!.level <= heading.level) {
      end = rootHeadings[j].start;
      break;
    }
  }
  return { start: heading.start, end, level: heading.level, text: heading.text, block: false };
}

/**
 * The scopes of heading blocks: the block, then its following siblings up to one that is a heading of its level or
 * higher, within the parent block (top-level blocks: up to the next Markdown heading).
 */
function blockScopes(text: string, headings: Heading[], blocks: readonly OutlineBlock[]): Scope[] {
  const scopes: Scope[] = [];
  const nextDocHeading = (at: number) => {
    let lo = 0;
    let hi = headings.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (headings[mid].start <= at) lo = mid + 1;
      else hi = mid;
    }
    return headings[lo]?.start ?? text.length;
  };
  const siblings = new Map<string, number[]>();
  blocks.forEach((block, i) => {
    const key = block.parent >= 0 ? `b${block.parent}` : `d${nextDocHeading(block.start)}`;
    if (!siblings.has(key)) siblings.set(key, []);
    siblings.get(key)!.push(i);
  });
  for (const group of siblings.values()) {
    group.forEach((index, k) => {
      const block = blocks[index];
      if (!block.heading) return;
      let end = block.parent >= 0 ? blocks[block.parent].end : nextDocHeading(block.start);
      for (let next = k + 1; next < group.length; next++) {
        const later = group[next];
        const heading = blocks[later].heading;
        if (heading && heading.level <= block.heading.level) {
          end = blocks[later].start;
          break;
        }
      }
      scopes.push({ start: block.start, end, level: block.heading.level, text: block.heading.text, block: true });
    });
  }
  return scopes;
}

/** The whole body as one section (strategy "none"). */
export function wholeBody(text: string, bodyStart: number): Section[] {
  const span = trim(text, bodyStart, text.length);
  return span ? [{ ...span, headerPath: [], level: 0, anchor: '' }] : [];
}

/**
 * Merges small sections with their neighbours, keeping the hierarchy:
 * - a run of sections shorter than `minChars` takes in the next section (forward merge);
 * - a short section that nothing after it can take in (the next heading is shallower, or there is none)
 *   joins the run before it (backward merge);
 * - a section joins a run only if it is as deep as the run's first section or deeper (a sibling or a
 *   descendant), so "## A" never swallows the following "# B"; and never beyond `maxChars`.
 * The merged section is cited by the heading of its longest part (the content it is mostly about) and keeps
 * every part's heading, so a search can cite the part a query is about.
 */
export function mergeSmallSections(sections: Section[], minChars: number, maxChars: number, shownSize: (section: Span) => number = (s) => s.end - s.start): Section[] {
  const merged: Section[] = [];
  let run: { first: Section; longest: Section; longestSize: number; shown: number; members: SectionPart[]; start: number; end: number } | undefined;
  const flush = () => {
    if (!run) return;
    merged.push({ ...run.longest, start: run.start, end: run.end, ...(run.members.length > 1 ? { parts: run.members } : {}) });
  };
  sections.forEach((section, i) => {
    // Sizes as shown (a page's properties are no text): a section that shows nothing always merges when it can.
    const size = shownSize(section);
    const small = (shown: number) => shown < minChars || shown === 0;
    const next = sections[i + 1];
    const strandedIfAlone = small(size) && !(next && next.level >= section.level);
    if (run && section.level >= run.first.level && section.end - run.start <= maxChars && (small(run.shown) || strandedIfAlone)) {
      // The blank lines between sections count, as they did when sizes were source lengths.
      run.shown += section.start - run.end + size;
      run.end = section.end;
      run.members.push(section);
      if (size > run.longestSize) {
        run.longest = section;
        run.longestSize = size;
      }
    } else {
      flush();
      run = { first: section, longest: section, longestSize: size, shown: size, members: [section], start: section.start, end: section.end };
    }
  });
  flush();
  return merged;
}
