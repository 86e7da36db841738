import GithubSlugger from 'github-slugger';
import type { Heading } from '../parse/markdownTree.js';
import { reduceWikilinks } from '../parse/links.js';
import { trim } from './rangeSplitter.js';

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
 * Cuts the body at every heading: the text before the first heading (if not blank), then one section per
 * heading up to the next heading of any level. Spans are trimmed of surrounding white space.
 */
export function sectionsAtHeadings(text: string, bodyStart: number, headings: Heading[]): Section[] {
  const sections: Section[] = [];
  const first = headings[0]?.start ?? text.length;
  const preamble = trim(text, bodyStart, first);
  if (preamble) sections.push({ ...preamble, headerPath: [], level: 0, anchor: '' });
  const slugger = new GithubSlugger();
  const stack: Array<{ level: number; title: string }> = [];
  headings.forEach((heading, i) => {
    const title = reduceWikilinks(heading.text);
    while (stack.length && stack.at(-1)!.level >= heading.level) stack.pop();
    stack.push({ level: heading.level, title });
    const span = trim(text, heading.start, headings[i + 1]?.start ?? text.length)!;
    sections.push({ ...span, headerPath: stack.map((s) => s.title), level: heading.level, anchor: title ? slugger.slug(title) : '' });
  });
  return sections;
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
export function mergeSmallSections(sections: Section[], minChars: number, maxChars: number): Section[] {
  const merged: Section[] = [];
  let run: { first: Section; longest: Section; members: SectionPart[]; start: number; end: number } | undefined;
  const flush = () => {
    if (!run) return;
    merged.push({ ...run.longest, start: run.start, end: run.end, ...(run.members.length > 1 ? { parts: run.members } : {}) });
  };
  sections.forEach((section, i) => {
    const size = section.end - section.start;
    const next = sections[i + 1];
    const strandedIfAlone = size < minChars && !(next && next.level >= section.level);
    if (run && section.level >= run.first.level && section.end - run.start <= maxChars && (run.end - run.start < minChars || strandedIfAlone)) {
      run.end = section.end;
      run.members.push(section);
      if (size > run.longest.end - run.longest.start) run.longest = section;
    } else {
      flush();
      run = { first: section, longest: section, members: [section], start: section.start, end: section.end };
    }
  });
  flush();
  return merged;
}
