/**
 * The spec's slug rule, the same the server applies to the name on creation: lowercase, runs of
 * non-alphanumerics become one hyphen, hyphens trimmed.
 */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
