// Every operation in the OpenAPI document gets an operationId, so generated clients have stable
// method names: one a route declares is kept, the rest are made here from the method and the path
// (GET /api/apps/{slug}/keys → getAppsBySlugKeys). Ids stay unique: a clash gets a numeric suffix.

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const capitalize = (word: string) => (word ? word[0]?.toUpperCase() + word.slice(1) : '');
const camel = (segment: string) =>
  segment
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map(capitalize)
    .join('');

/** The operationId made from an operation's method and its OpenAPI path. */
export function operationIdFor(method: string, path: string): string {
  const segments = path.split('/').filter(Boolean);
  if (segments[0] === 'api' && segments.length > 1) segments.shift();
  const words = segments.map((segment) => {
    const param = /^\{(.+)\}$/.exec(segment);
    return param ? `By${camel(param[1] ?? '')}` : camel(segment);
  });
  return method.toLowerCase() + (words.join('') || 'Root');
}

interface OperationDocument {
  paths?: Record<string, Record<string, unknown> | undefined>;
}

/** For @fastify/swagger's transformObject: fills in missing operationIds, each operation its own object. */
export function addOperationIds<T extends object>(document: T): T {
  const { paths } = document as OperationDocument;
  const taken = new Set<string>();
  const pending: { item: Record<string, unknown>; method: string; path: string }[] = [];
  for (const [path, item] of Object.entries(paths ?? {})) {
    if (!item) continue;
    for (const method of METHODS) {
      const operation = item[method] as { operationId?: string } | undefined;
      if (!operation) continue;
      // Routes with several methods share one operation object in the generated document.
      item[method] = { ...operation };
      if (operation.operationId && !taken.has(operation.operationId)) taken.add(operation.operationId);
      else pending.push({ item, method, path });
    }
  }
  for (const { item, method, path } of pending) {
    const base = operationIdFor(method, path);
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}${n}`;
    taken.add(id);
    (item[method] as { operationId?: string }).operationId = id;
  }
  return document;
}
