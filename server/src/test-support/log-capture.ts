// A logger destination for tests that read what an app logged (request ids, keys kept out).
import { Writable } from 'node:stream';

/** A stream for an app's logger (`logger: { level, stream }`) that keeps every chunk written to it, in `lines`. */
export function capturedLog(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}
