/**
 * The embedding models Cairn offers by name: the two bundled ones and a short list of hub models known to work
 * with transformers.js (ONNX weights in onnx/, a tokenizer.json). One list, used by the core (prefixes, download)
 * and shown by the settings UI. Data only (its types are in core/contract/models.ts).
 *
 * Facts are from each model's card on huggingface.co (the Xenova/* card and the original model's card it ports):
 * parameters, languages, window and prefixes from BAAI/bge-small-en-v1.5, sentence-transformers/all-MiniLM-L6-v2
 * and intfloat/multilingual-e5-small; download sizes from the Xenova/* repositories' file lists (q8 file
 * onnx/model_quantized.onnx plus tokenizer.json). Relative speed is by the number of transformer layers and width
 * (6 × 384 for MiniLM, 12 × 384 for bge-small and e5-small); the bundled static tables are a lookup, no layers.
 */

import type { CatalogModel, ModelPrefixes } from '../contract/models.js';

export const NO_PREFIXES: Readonly<ModelPrefixes> = { query: '', passage: '' };

export const MODEL_CATALOG: readonly CatalogModel[] = [
  {
    id: 'cairn-glove-100d',
    label: 'Cairn GloVe 100d (bundled)',
    bundled: true,
    size: '10 MB, included',
    languages: 'English',
    speed: 'fastest (a word table, no transformer layers)',
    dims: 100,
    source: 'models/cairn-glove-100d/README.md',
    prefixes: { ...NO_PREFIXES },
  },
  {
    id: 'cairn-retrieval-100d',
    label: 'Cairn retrieval 100d (bundled, default)',
    bundled: true,
    size: '10 MB, included',
    languages: 'English',
    speed: 'fastest (a word table, no transformer layers)',
    dims: 100,
    source: 'models/cairn-retrieval-100d/MODEL_CARD.md',
    prefixes: { ...NO_PREFIXES },
  },
  {
    id: 'Xenova/all-MiniLM-L6-v2',
    label: 'all-MiniLM-L6-v2',
    bundled: false,
    size: '23 MB download',
    languages: 'English',
    speed: 'fast (6 layers; the quickest transformer here)',
    dims: 384,
    source: 'https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2 (22.7M parameters, input cut at 256 word pieces)',
    prefixes: { ...NO_PREFIXES },
  },
  {
    id: 'Xenova/bge-small-en-v1.5',
    label: 'BGE small English v1.5',
    bundled: false,
    size: '34 MB download',
    languages: 'English',
    speed: 'medium (12 layers: about half the speed of all-MiniLM-L6-v2)',
    dims: 384,
    source: 'https://huggingface.co/BAAI/bge-small-en-v1.5 (33.4M parameters, 512 tokens; query instruction for retrieval)',
    prefixes: { query: 'Represent this sentence for searching relevant passages: ', passage: '' },
  },
  {
    id: 'Xenova/multilingual-e5-small',
    label: 'multilingual E5 small',
    bundled: false,
    size: '135 MB download (118 MB weights + 17 MB tokenizer)',
    languages: 'about 100 languages (XLM-RoBERTa vocabulary)',
    speed: 'medium (12 layers, like BGE small)',
    dims: 384,
    source: 'https://huggingface.co/intfloat/multilingual-e5-small (118M parameters, 512 tokens; "query: " / "passage: " prefixes required)',
    prefixes: { query: 'query: ', passage: 'passage: ' },
  },
];

/** The catalog entry of a model id, if it is one of the listed models. */
export function catalogModel(id: string): CatalogModel | undefined {
  return MODEL_CATALOG.find((m) => m.id === id);
}
