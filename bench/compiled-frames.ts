// `npm start` runs the compiled server (server/dist/main.js, docs/decisions/0050): a V8 CPU profile
// of it names that one file for all of Tollbooth's code. This maps each such frame back to its
// source file and line through the bundle's source map, so the benches' tables still name
// server/src (and contract/src) files, now with their real line numbers.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface CallFrame {
  url: string;
  lineNumber: number;
  columnNumber: number;
}

/** Rewrites, in place, the call frames of `nodes` that lie in a compiled server bundle. */
export function mapCompiledFrames(nodes: readonly { callFrame: CallFrame }[]): void {
  const maps = new Map<string, SourceMap | null>();
  for (const { callFrame: frame } of nodes) {
    if (!frame.url.endsWith('/server/dist/main.js')) continue;
    let map = maps.get(frame.url);
    if (map === undefined) {
      try {
        map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(frame.url)}.map`, 'utf8')));
      } catch {
        map = null;
      }
      maps.set(frame.url, map);
    }
    if (!map) continue;
    const entry = map.findEntry(frame.lineNumber, frame.columnNumber);
    if (!('originalSource' in entry) || !entry.originalSource) continue;
    const source = entry.originalSource.startsWith('file:')
      ? fileURLToPath(entry.originalSource)
      : path.resolve(path.dirname(fileURLToPath(frame.url)), entry.originalSource);
    frame.url = pathToFileURL(source).href;
    frame.lineNumber = entry.originalLine;
    frame.columnNumber = entry.originalColumn;
  }
}
