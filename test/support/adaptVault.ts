import { notesFileOf } from '../../core/indexing/indexState.js';
import { readManifest } from '../../core/indexing/manifest.js';
import { seededRandom } from '../../core/random/seededRandom.js';
import { indexedNotesVault } from './notesVault.js';

// Topics with their own words, so that a heading's words and its body's words co-occur the way a real vault's do.
const TOPICS: Record<string, string[]> = {
  garden: ['tomato', 'soil', 'compost', 'seed', 'water', 'harvest', 'weed', 'sunlight', 'root', 'leaf', 'fence', 'shovel'],
  bicycle: ['chain', 'brake', 'tyre', 'pedal', 'gear', 'saddle', 'spoke', 'frame', 'helmet', 'pump', 'wheel', 'handlebar'],
  kitchen: ['oven', 'flour', 'butter', 'recipe', 'bread', 'knife', 'salt', 'pepper', 'onion', 'garlic', 'pan', 'dough'],
  sailing: ['boat', 'wind', 'sail', 'anchor', 'harbour', 'rope', 'tide', 'mast', 'deck', 'crew', 'compass', 'storm'],
  music: ['guitar', 'chord', 'melody', 'rhythm', 'piano', 'song', 'tempo', 'drum', 'string', 'note', 'scale', 'concert'],
};
const VERBS = ['checks', 'needs', 'protects', 'moves', 'holds', 'cleans', 'changes', 'covers', 'follows', 'supports'];
const GLUE = ['always', 'usually', 'before winter', 'after rain', 'every week', 'on weekends', 'carefully', 'quickly'];

/** A seeded vault of `notes` notes, each about one topic, with four sections of several sentences. */
export function generatedVault(notes: number, seed = 3): Record<string, string> {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const topics = Object.keys(TOPICS);
  const files: Record<string, string> = {};
  for (let n = 0; n < notes; n++) {
    const topic = topics[n % topics.length];
    const words = TOPICS[topic];
    const sentence = () => `The ${pick(words)} ${pick(VERBS)} the ${pick(words)} ${pick(GLUE)} while the ${pick(words)} ${pick(VERBS)} the ${pick(words)}.`;
    const sections = [0, 1, 2, 3].map(() => {
      const heading = `${pick(words)} and ${pick(words)}`;
      return `## ${heading[0].toUpperCase()}${heading.slice(1)}\n\n${Array.from({ length: 4 }, sentence).join(' ')}\n\n- ${sentence()}\n- ${sentence()}\n`;
    });
    files[`${topic}/${topic} note ${n}.md`] = `# ${topic} note ${n}\n\n${sentence()} ${sentence()}\n\n${sections.join('\n')}`;
  }
  return files;
}

/** Indexes `notes` with the real code (see notesVault.ts) and saves the index: its notes.jsonl and model fingerprint. */
export async function indexedNotesFile(prefix: string, notes: Record<string, string>) {
  const { vault, remove } = await indexedNotesVault(prefix, notes);
  await vault.persist();
  const manifest = (await readManifest(vault.dataDir))!;
  return { notesFile: notesFileOf(vault.dataDir, manifest), fingerprint: manifest.embedding.fingerprint, remove };
}
