/**
 * The embedding models the settings offer and a model download's progress: what the model picker shows. Types
 * only; the catalog itself (MODEL_CATALOG) and the download live in core/embedding/.
 */

/** Text put before what is embedded, for models trained with instructions (bge, e5). Empty: nothing. */
export interface ModelPrefixes {
  /** Before a search query (and other short texts compared to passages). */
  query: string;
  /** Before a chunk's text when it is embedded for the index. */
  passage: string;
}

export interface CatalogModel {
  /** The `[embedding] model` value. */
  id: string;
  label: string;
  bundled: boolean;
  /** Download size of the q8 weights and tokenizer, as shown ("34 MB"); the bundled ones: size on disk. */
  size: string;
  languages: string;
  /** Relative embedding speed, e.g. "fastest", "about 2× slower than all-MiniLM-L6-v2". */
  speed: string;
  dims: number;
  /** Where the facts come from. */
  source: string;
  prefixes: ModelPrefixes;
}

/** Downloading a chosen embedding model: per file, bytes so far and the file's size (0 while unknown). */
export interface ModelDownloadProgress {
  modelId: string;
  /** The file being fetched, e.g. "onnx/model_quantized.onnx". */
  file: string;
  /** 1-based position of `file` among `fileCount` files. */
  fileIndex: number;
  fileCount: number;
  /** Bytes of `file` on disk so far (a resumed file starts above 0) and its size (0 while unknown). */
  loaded: number;
  size: number;
}

/** An embedding model the settings offer (core/embedding/modelCatalog.ts), and whether it is on disk. */
export type ModelChoiceView = CatalogModel & {
  /** Bundled, or downloaded already: choosing it needs no network. */
  onDisk: boolean;
};

export interface ModelsView {
  /** `[embedding] model` in force. */
  current: string;
  models: ModelChoiceView[];
  /** The model being downloaded now, if any. */
  downloading: string | null;
}

/**
 * What choosing a model came to: saved to config.toml (the vault rebuilds, reusing cached embeddings), or not, and
 * why: offline (said at once; the current model stays), cancelled (a later choice resumes), or another failure.
 */
export type ChooseModelResult =
  | { ok: true; rebuild?: string }
  | { ok: false; reason: 'offline' | 'cancelled' | 'not-found' | 'damaged' | 'failed' | 'busy' | 'config'; message: string };
