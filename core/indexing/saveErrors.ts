// What a save that failed reports: which folder and file, and why, in words.

/**
 * A save that failed (a full disk, a folder that cannot be written): nothing of it was kept, and the index saved
 * before is as it was. The index in memory is whole; the next save writes it all.
 */
export class IndexSaveError extends Error {
  constructor(
    readonly dir: string,
    readonly file: string,
    cause: Error,
    savedBefore: boolean,
  ) {
    super(`the index could not be saved in ${dir} (writing ${file}: ${describeFsError(cause)}); ${savedBefore ? 'the index saved before is kept' : 'no index was saved before'}`, { cause });
  }
}

/** "no space left on device (ENOSPC)" rather than Node's "ENOSPC: no space left on device, write". */
export function describeFsError(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (!code) return error.message;
  const text = error.message.replace(new RegExp(`^${code}: `), '').replace(/, \w+( '[^']*')?$/, '');
  return `${text} (${code})`;
}

