// The spec's slug rule (section 5), once for server and web: the server derives an application's
// slug from its name with it on creation, the web previews the same slug while the name is typed.

/** Lowercase, runs of non-alphanumerics become one hyphen, hyphens trimmed; a name with no letters or digits gives "app". */
export function slugify(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'app';
}

/** The first of slug, slug-2, slug-3… not in taken. */
export function firstFreeSlug(base: string, taken: Set<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
