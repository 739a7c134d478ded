import { PassThrough, type Readable } from 'node:stream';
import { asStream, type FileStore } from './file-store.js';
import type { ArchiveEntry } from './file-batch.service.js';

/**
 * A zip archive of the entries as a stream, written as it is read: each file's content is opened only when
 * its turn comes (one store stream open at a time), piped through the compressor into the archive, and the
 * archive into the reply, with back-pressure all along; nothing holds a file, let alone the archive, whole. A
 * content missing from the store, or a store failing mid-way, ends the stream with an error (the reply is cut
 * short: its status has been sent). The zip library is loaded with the first archive.
 */
export async function zipStream(store: FileStore, entries: readonly ArchiveEntry[]): Promise<Readable> {
  const { ZipFile } = await import('yazl');
  const zip = new ZipFile();
  const out = new PassThrough();
  let current: Readable | undefined;
  const fail = (error: Error) => {
    current?.destroy();
    out.destroy(error);
  };
  zip.on('error', fail);
  zip.outputStream.on('error', fail);
  // A reply closed early (the caller went away): the store stream in progress is let go.
  out.on('close', () => current?.destroy());
  for (const entry of entries) {
    const options = { mtime: new Date(entry.at) };
    if (entry.folder) {
      zip.addEmptyDirectory(entry.path, options);
      continue;
    }
    const { storageKey } = entry;
    zip.addReadStreamLazy(entry.path, options, (done) => {
      if (out.destroyed) return;
      store.get(storageKey).then(
        (found) => {
          if (!found) return fail(new Error(`the content of ${entry.path} is missing from the store`));
          current = asStream(found.body);
          current.once('error', fail);
          done(null, current);
        },
        (error: Error) => fail(error),
      );
    });
  }
  zip.end();
  return zip.outputStream.pipe(out);
}
