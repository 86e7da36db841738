import type { AnswerSource } from '../contract/answer.js';
import { shownHeadings } from '../contract/inlineText.js';
import type { AnswerVault } from './types.js';

/**
 * The sections that may answer a question: the hybrid search's best chunks, each widened to its whole section
 * when the chunker force-split it (the sentence that answers may sit in a sibling piece the search did not rank).
 * A section reached through two of its pieces appears once, at its better rank.
 */
export async function retrieveSources(vault: AnswerVault, question: string, k: number): Promise<AnswerSource[]> {
  const { results } = await vault.search({ query: question, k });
  const sources: AnswerSource[] = [];
  const seen = new Set<string>();
  for (const result of results) {
    const pieces = (await vault.sectionChunks(result.chunkId)) ?? [result];
    const section = pieces[0].chunkId;
    if (seen.has(section)) continue;
    seen.add(section);
    sources.push({
      chunkId: result.chunkId,
      path: result.path,
      title: result.title,
      headerPath: result.headerPath,
      startLine: pieces[0].startLine,
      endLine: pieces.at(-1)!.endLine,
      rank: sources.length + 1,
      score: result.score,
      pieces,
      ...(result.sameText ? { sameText: result.sameText } : {}),
    });
  }
  return sources;
}

/** "Note title § Header › Path (lines a-b)": how a source is named to people and to the model. */
export function sourceLabel(source: Pick<AnswerSource, 'title' | 'headerPath' | 'path'>, startLine: number, endLine: number): string {
  // Never the folder path: the label is part of what is sent to a configured model.
  const title = source.title || source.path.slice(source.path.lastIndexOf('/') + 1);
  const headers = shownHeadings(title, source.headerPath);
  return `${headers.length ? `${title} § ${headers.join(' › ')}` : title} (lines ${startLine}-${endLine})`;
}
