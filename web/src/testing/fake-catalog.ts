// Catalog answers for the screens' tests, shaped like GET /api/catalog/ and /api/catalog/{slug}.
import type { CatalogApp, CatalogAppDetail } from '@tollbooth/contract';

export function makeCatalogApp(overrides: Partial<CatalogApp> = {}): CatalogApp {
  const name = overrides.name ?? 'Haiku Writer';
  return {
    slug: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    name,
    description: 'Seventeen syllables about anything',
    type: 'prompt',
    mode: 'completion',
    price_cents: 100,
    upcoming_price_cents: null,
    upcoming_price_at: null,
    creator_name: 'Ada',
    calls_30d: 12,
    published_at: '2024-05-01T10:00:00.000Z',
    demo_model: false,
    ...overrides,
  };
}

export function makeCatalogAppDetail(overrides: Partial<CatalogAppDetail> = {}): CatalogAppDetail {
  const base = makeCatalogApp(overrides);
  const call = `http://tollbooth.test/api/app/${base.slug}/${base.mode === 'chat' ? 'chat' : 'completion'}-messages`;
  return {
    ...base,
    fields: [
      { name: 'style', label: 'Style', description: '', control: 'select', required: true, options: ['classic', 'modern'] },
      { name: 'topic', label: 'Topic', description: 'What the haiku is about', control: 'text', required: true, maxLength: 100 },
      { name: 'lines', label: 'Lines', description: 'Always three', control: 'integer', required: false, minimum: 3, maximum: 3 },
    ],
    text_input: 'topic',
    plans: [],
    billing_path: `/applications/${base.slug}/billing`,
    endpoints: {
      call,
      dify_base_url: `http://tollbooth.test/api/app/${base.slug}`,
      openai_base_url: 'http://tollbooth.test/v1',
      openapi: `http://tollbooth.test/api/app/${base.slug}/openapi.json`,
    },
    snippets: {
      curl: `curl -X POST '${call}' -H 'Authorization: Bearer YOUR_API_KEY'`,
      javascript: `const response = await fetch('${call}');`,
      python: 'import requests',
      dify_sdk: "import { CompletionClient } from 'dify-client';",
      openai_sdk: "import OpenAI from 'openai';",
    },
    ...overrides,
  };
}
