// Turns an AppDescription into the files of a ready-to-run front-end app. The files themselves are
// real files under ./template (shared/ for both kinds, completion/ and chat/ for each screen), so
// they can be read, linted and changed like any code; only a few tokens are filled in here, and
// two files are written from the description: .env.example and src/app-description.json.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { type AppDescription, perCallCard, type RateCard, rateCardLines, rateCardSummary } from '@tollbooth/contract';

export interface GeneratedFile {
  /** Relative, forward slashes, inside the archive's top folder. */
  path: string;
  content: Buffer;
}

const TEMPLATE_ROOT = path.join(import.meta.dirname, 'template');

async function listFiles(root: string, dir = ''): Promise<string[]> {
  const entries = await readdir(path.join(root, dir), { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const relative = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      files.push(...(await listFiles(root, relative)));
    } else if (entry.isFile()) files.push(relative);
  }
  return files;
}

type TemplateFiles = Map<string, Buffer>;
const templateCache = new Map<string, Promise<TemplateFiles>>();

/** The template files of one kind: shared/ overlaid with the kind's own folder. Read once per process. */
function readTemplate(kind: AppDescription['kind']): Promise<TemplateFiles> {
  let files = templateCache.get(kind);
  if (!files) {
    files = (async () => {
      const result: TemplateFiles = new Map();
      for (const layer of ['shared', kind]) {
        const root = path.join(TEMPLATE_ROOT, layer);
        for (const file of await listFiles(root)) result.set(file, await readFile(path.join(root, file)));
      }
      return result;
    })();
    files.catch(() => templateCache.delete(kind));
    templateCache.set(kind, files);
  }
  return files;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Markdown that renders the text as written (no accidental headings, links or emphasis). */
const escapeMarkdown = (text: string) => text.replace(/([\\`*_{}[\]()#+!|<>])/g, '\\$1');

export const formatPrice = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/** The archive's name and its top folder: {slug}-{kind}-app, or {slug}-workflow-app for a workflow. */
export function frontendBaseName(description: Pick<AppDescription, 'slug' | 'kind' | 'source'>) {
  return `${description.slug}-${description.source === 'workflow' ? 'workflow' : description.kind}-app`;
}

export interface GenerateOptions {
  /** This Tollbooth's public URL, written into .env.example. */
  tollboothUrl: string;
  /** The app's rate card in force (issue 60; absent: per call at the description's priceCents). */
  pricing?: RateCard;
}

/** Every file of the generated app, sorted by path so the archive is the same for the same description. */
export async function generateFrontendFiles(description: AppDescription, { tollboothUrl, pricing }: GenerateOptions): Promise<GeneratedFile[]> {
  const template = await readTemplate(description.kind);
  const card = pricing ?? perCallCard(description.priceCents);
  const tokens: Record<string, string> = {
    __APP_NAME__: description.name,
    __APP_NAME_HTML__: escapeHtml(description.name),
    __APP_NAME_MARKDOWN__: escapeMarkdown(description.name),
    __APP_DESCRIPTION_MARKDOWN__: escapeMarkdown(description.description || 'No description.'),
    __APP_SLUG__: description.slug,
    __PACKAGE_NAME__: frontendBaseName(description),
    __APP_KIND__: description.kind,
    __APP_PRICE__: rateCardSummary(card),
    __TOLLBOOTH_URL__: tollboothUrl,
    __ENDPOINT__: `${tollboothUrl}/api/app/${description.slug}/${description.kind}-messages`,
  };
  const pattern = new RegExp(Object.keys(tokens).join('|'), 'g');
  const files: GeneratedFile[] = [];
  for (const [file, content] of template) {
    const text = content.toString('utf8');
    files.push({
      path: file,
      content: pattern.test(text)
        ? Buffer.from(
            text.replace(pattern, (token) => tokens[token]!),
            'utf8',
          )
        : content,
    });
    pattern.lastIndex = 0;
  }
  files.push({
    path: '.env.example',
    content: Buffer.from(
      [
        '# Copy to .env (or export these variables) and paste an API key from your Tollbooth profile page.',
        '# The key stays on the server: the browser only talks to server.js.',
        `TOLLBOOTH_URL=${tollboothUrl}`,
        `TOLLBOOTH_APP=${description.slug}`,
        'TOLLBOOTH_API_KEY=',
        '# Port of the local server (npm run dev and npm start)',
        'PORT=5173',
        '# Calls per minute from one client address, and what all calls may cost per day (UTC), in cents',
        'RATE_LIMIT_PER_MINUTE=20',
        'SPEND_CAP_CENTS=500',
        '# Other host names this server is reached by (comma-separated), e.g. app.example.com when published',
        'ALLOWED_HOSTS=',
        '',
      ].join('\n'),
    ),
  });
  const baked = {
    slug: description.slug,
    name: description.name,
    description: description.description,
    priceCents: description.priceCents,
    // The rate card in words, as the catalog shows it: one line for the header, and line by line.
    price: rateCardSummary(card),
    priceLines: rateCardLines(card),
    // Per token or cost-plus: server.js counts each call at what its answer says it cost.
    priceVaries: card.form !== 'per_call',
    kind: description.kind,
    source: description.source,
    fields: description.fields,
  };
  files.push({ path: 'src/app-description.json', content: Buffer.from(`${JSON.stringify(baked, null, 2)}\n`) });
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
