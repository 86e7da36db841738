// The notes nearest to a note by meaning, for the note view's "related" list.
import type { NoteStore } from '../indexing/noteStore.js';
import type { VectorIndex } from '../indices/vector/vectorIndex.js';

export interface RelatedNotesSource {
  store: NoteStore;
  /** The chunks' vectors: searched, and the note's own read from it. */
  vectors: VectorIndex;
}

/** Up to `count` other notes whose chunks are nearest the note's direction in embedding space (the mean of its chunk vectors). */
export function relatedNotes(source: RelatedNotesSource, notePath: string, count: number): string[] {
  const { store, vectors } = source;
  const record = store.note(notePath);
  if (!record) return [];
  const mean = new Float32Array(vectors.dims);
  for (const chunk of record.chunks) {
    const vector = vectors.vectorOf(chunk.id);
    if (vector) for (let i = 0; i < mean.length; i++) mean[i] += vector[i];
  }
  const related: string[] = [];
  if (!mean.some((x) => x !== 0) || vectors.size === 0) return related;
  for (const hit of vectors.search(mean, Math.min(vectors.size, count * 6), (id) => store.chunk(id)?.note.path !== notePath)) {
    const other = store.chunk(hit.id)!.note.path;
    if (!related.includes(other)) related.push(other);
    if (related.length >= count) break;
  }
  return related;
}
