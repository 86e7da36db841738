/** What the keyword index holds per chunk: its fields, their boosts, and the title/alias keys of exact matches. */
import { foldAccents } from '../searchTokenizer.js';

export interface KeywordDoc {
  id: string;
  path: string;
  title: string;
  aliases: string[];
  headerPath: string[];
  tags: string[];
  content: string;
}

export const FIELDS = ['title', 'aliases', 'headerPath', 'tags', 'content'] as const;
type Field = (typeof FIELDS)[number];

/**
 * A title or alias names what the whole note is about, a heading what this section is about, a tag a topic
 * someone chose; the body merely mentions. But title, aliases and tags are copied onto every chunk of a note:
 * they cannot tell its chunks apart, only the content can, and a large title boost lets every chunk of a note
 * whose title shares one word with the query outrank the passage that discusses it. Measured on the PowerShell
 * docs (300 queries of 3 rare words of a passage / 300 "title heading" queries, MRR@10): boosts 3/2/1 gave
 * 0.45 / 0.95, 2/1.5/1 gave 0.52 / 0.94, all 1 gave 0.58 / 0.92. Exact title and alias matches rank first by
 * themselves, so the boost need not do that job: the middle setting.
 */
export const KEYWORD_FIELD_BOOSTS: Readonly<Record<Field, number>> = { title: 2, aliases: 2, headerPath: 1.5, tags: 1.5, content: 1 };
export const BOOST_BY_FIELD_ID = FIELDS.map((field) => KEYWORD_FIELD_BOOSTS[field]);

/** A field's indexed text; the title field also holds the file name when it differs from the title. */
export function extractField(doc: KeywordDoc, field: string): string {
  switch (field) {
    case 'id':
      return doc.id;
    case 'title': {
      const base = baseName(doc.path);
      return normalizeExactKey(base) === normalizeExactKey(doc.title) ? doc.title : `${doc.title}\n${base}`;
    }
    case 'aliases':
      return doc.aliases.join('\n');
    case 'headerPath':
      return doc.headerPath.join('\n');
    case 'tags':
      return doc.tags.join('\n');
    case 'content':
      return doc.content;
    default:
      throw new Error(`unknown keyword field ${field}`);
  }
}

/** Lowercased, accent-folded, runs of whitespace and punctuation collapsed to one space. */
export function normalizeExactKey(text: string): string {
  const folded = foldAccents(text).toLowerCase();
  const collapsed = folded.replace(/[\s\p{P}\p{S}]+/gu, ' ').trim();
  return collapsed !== '' ? collapsed : folded.trim();
}

/** The keys a query equal to which is an exact title match of this chunk: its title, file name and aliases. */
export function titleKeysOf(doc: KeywordDoc): string[] {
  return [...new Set([doc.title, baseName(doc.path), ...doc.aliases].map(normalizeExactKey))].filter((key) => key !== '');
}

function baseName(path: string): string {
  const file = path.slice(path.lastIndexOf('/') + 1);
  return file.replace(/\.(md|markdown)$/i, '');
}

/**
 * Chunks (by MiniSearch short id, the index's one compact number for a chunk) by exact title key, and back. Short
 * ids rather than chunk ids: the chunk id strings are held once, by MiniSearch.
 */
export class TitleKeys {
  private readonly docsByKey = new Map<string, Set<number>>();
  private readonly keysByDoc = new Map<number, string[]>();

  docs(key: string): Iterable<number> {
    return this.docsByKey.get(key) ?? [];
  }

  add(key: string, doc: number): void {
    let docs = this.docsByKey.get(key);
    if (!docs) this.docsByKey.set(key, (docs = new Set()));
    docs.add(doc);
    const keys = this.keysByDoc.get(doc);
    if (!keys) this.keysByDoc.set(doc, [key]);
    else if (!keys.includes(key)) keys.push(key);
  }

  discard(doc: number): void {
    for (const key of this.keysByDoc.get(doc) ?? []) {
      const docs = this.docsByKey.get(key);
      docs?.delete(doc);
      if (docs?.size === 0) this.docsByKey.delete(key);
    }
    this.keysByDoc.delete(doc);
  }

  entries(): Array<[string, number[]]> {
    return [...this.docsByKey].map(([key, docs]): [string, number[]] => [key, [...docs]]);
  }
}
