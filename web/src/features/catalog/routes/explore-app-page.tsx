import { type CatalogAppDetail, type CatalogPlan, formatMicros, formatMinor } from '@tollbooth/contract';
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { EmbedSnippet } from '@/components/embed/embed-snippet';
import { Badge, typeTone } from '@/components/ui/badges';
import { ErrorBox } from '@/components/ui/error-box';
import { PlanFeatures } from '@/components/ui/plan-features';
import { PageSpinner } from '@/components/ui/spinner';
import { primaryButton, secondaryButton, textLink } from '@/components/ui/styles';
import { TitledCard } from '@/components/ui/titled-card';
import { useDownloadApp } from '@/lib/api/apps/download-app-frontend';
import { useCatalogApp } from '@/lib/api/catalog/get-catalog-app';
import { useAuth } from '@/lib/auth/use-auth';
import { ApiError, getErrorMessage } from '@/lib/errors';
import { formatDate } from '@/lib/format';
import { isFreeCard, priceLines, rateCardNow, upcomingRateCard } from '@/lib/rate-card';
import { DemoModelBadge } from '../components/catalog-card';
import { CodeSnippets } from '../components/code-snippets';
import { InputsTable } from '../components/inputs-table';

function Section({ title, children, action }: { title: string; children: ReactNode; action?: ReactNode }) {
  return (
    <TitledCard id={`explore-${title.toLowerCase().replace(/\W+/g, '-')}`} title={title} action={action ?? null}>
      <div className="mt-4">{children}</div>
    </TitledCard>
  );
}

function PlanCard({ plan }: { plan: CatalogPlan }) {
  return (
    <li className="rounded-md p-4 ring-1 ring-gray-200">
      <h3 className="font-semibold text-gray-900">{plan.name}</h3>
      <p className="mt-1 text-sm text-gray-900">
        <span className="text-lg font-bold">{formatMinor(plan.price_cents, plan.currency)}</span> {plan.currency.toUpperCase()} / month
      </p>
      {plan.included_calls > 0 ? <p className="text-sm text-gray-600">{plan.included_calls.toLocaleString('en-US')} calls included each month</p> : null}
      {plan.included_usage_micros > 0 ? (
        <p className="text-sm text-gray-600">{formatMicros(plan.included_usage_micros)} of usage included each month, at the app's rate</p>
      ) : null}
      {plan.description ? <p className="mt-2 text-sm text-gray-600">{plan.description}</p> : null}
      <PlanFeatures features={plan.features} className="mt-2 space-y-0.5 text-sm text-gray-700" />
    </li>
  );
}

/** How an OpenAI client fills this app's inputs (decision 0112); the OpenAI SDK snippet shows it. */
function openaiInputsRule(app: CatalogAppDetail): string {
  const others = app.fields.filter((field) => app.mode === 'chat' || field.name !== app.text_input).map((field) => field.name);
  const message =
    app.mode === 'chat' ? 'The last user message is the query' : app.text_input ? `The last user message fills ${app.text_input}` : 'Send every input';
  if (others.length === 0) return `${message}.`;
  return `${message}; ${others.join(', ')} go in metadata (text) or an "inputs" body field (any JSON).`;
}

/** What a call costs, in the API reference's words (issue 60: a per-token call's amount is in its answer). */
function callCostSentence(app: CatalogAppDetail): string {
  const card = rateCardNow(app);
  if (isFreeCard(card)) return 'Each successful call costs nothing.';
  if (card.form === 'per_call') return `Each successful call costs ${priceLines(card).join(', ')}.`;
  return `Each successful call is charged at the rate card above; its answer carries the exact amount (usage.total_price, or usage.cost on the OpenAI endpoint). Cap it with an X-Max-Price header (dollars).`;
}

/** The rate card line by line, and an announced one with its date. */
function RateCard({ app }: { app: CatalogAppDetail }) {
  const card = rateCardNow(app);
  const upcoming = upcomingRateCard(app);
  const [first, ...rest] = priceLines(card);
  return (
    <>
      {card.form === 'per_call' ? (
        <>
          <p className="text-2xl font-bold text-gray-900">{first?.replace(/ per call$/, '')}</p>
          <p className="text-sm text-gray-500">per successful call</p>
        </>
      ) : (
        <p className="text-lg font-bold text-gray-900">{first}</p>
      )}
      {rest.length ? (
        <ul className="mt-1 text-sm text-gray-700" aria-label="Rate card">
          {rest.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
      {upcoming === null ? null : upcoming.card.form === 'per_call' && priceLines(upcoming.card).length === 1 ? (
        <p className="mt-1 text-sm text-amber-700" data-testid="explore-upcoming-price">
          Rises to {priceLines(upcoming.card)[0]!.replace(/ per call$/, '')} from {formatDate(upcoming.at)}
        </p>
      ) : (
        <div className="mt-2 text-sm text-amber-700" data-testid="explore-upcoming-price">
          <p>From {formatDate(upcoming.at)}:</p>
          <ul aria-label="Announced rate card">
            {priceLines(upcoming.card).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}

function ApiReference({ app }: { app: CatalogAppDetail }) {
  const rows: [string, ReactNode][] = [
    [
      'Endpoint',
      <code key="e" className="break-all">
        POST {app.endpoints.call}
      </code>,
    ],
    ['Authentication', <code key="a">Authorization: Bearer YOUR_API_KEY</code>],
    [
      'Dify client base URL',
      <code key="d" className="break-all">
        {app.endpoints.dify_base_url}
      </code>,
    ],
    [
      'OpenAI client',
      <span key="o">
        base URL <code className="break-all">{app.endpoints.openai_base_url}</code>, model <code>{app.slug}</code>
        <span className="mt-1 block font-sans text-gray-600" data-testid="openai-inputs-rule">
          {openaiInputsRule(app)}
        </span>
      </span>,
    ],
    [
      'OpenAPI document',
      <a key="spec" href={app.endpoints.openapi} className={`${textLink} break-all`}>
        {app.endpoints.openapi}
      </a>,
    ],
  ];
  return (
    <>
      <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-[12rem_1fr]">
        {rows.map(([label, value]) => (
          <div key={label} className="contents">
            <dt className="font-medium text-gray-500">{label}</dt>
            <dd className="font-mono text-xs text-gray-900 sm:text-sm">{value}</dd>
          </div>
        ))}
      </dl>
      <p className="mt-4 text-sm text-gray-600">
        Replace YOUR_API_KEY with one of your API keys (create one on your{' '}
        <Link to="/profile" className={textLink}>
          profile
        </Link>
        ). {callCostSentence(app)} Failed calls are free.
      </p>
      <div className="mt-4">
        <CodeSnippets snippets={app.snippets} />
      </div>
    </>
  );
}

/** /explore/{slug}: a live public app's public page, for everyone. */
export function ExploreAppPage() {
  const { slug = '' } = useParams();
  const signedIn = useAuth().status === 'authenticated';
  const app = useCatalogApp(slug);
  const { download, isDownloading } = useDownloadApp();

  if (app.isPending) return <PageSpinner message="Loading application..." />;
  if (app.isError || !app.data) {
    const notFound = app.error instanceof ApiError && app.error.status === 404;
    return (
      <div className="mx-auto max-w-3xl px-4 py-8">
        <ErrorBox message={notFound ? 'Application not found' : getErrorMessage(app.error)}>
          <Link to="/explore" className={`${textLink} mt-2 inline-block text-sm`}>
            Back to Explore
          </Link>
        </ErrorBox>
      </div>
    );
  }

  const data = app.data;
  const tryIt = `/api-test?app=${encodeURIComponent(data.slug)}`;
  return (
    <div className="mx-auto max-w-5xl px-4 py-8 sm:px-6 lg:px-8">
      <Link to="/explore" className={`${textLink} text-sm`}>
        ← Explore
      </Link>
      <header className="mt-4 flex flex-col gap-4 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0">
          <h1 className="text-2xl font-bold tracking-tight break-words text-gray-900 sm:text-3xl">{data.name}</h1>
          <p className="mt-1 text-sm text-gray-600">
            by <span className="font-medium text-gray-900">{data.creator_name}</span> · <code className="font-mono">{data.slug}</code>
          </p>
          <div className="mt-3 flex flex-wrap gap-2">
            <Badge tone={typeTone(data.type)} title="Type">
              {data.type}
            </Badge>
            <Badge tone="indigo" title="Mode">
              {data.mode}
            </Badge>
            <Badge tone="gray" title="Calls in the last 30 days">
              {data.calls_30d.toLocaleString('en-US')} calls in 30 days
            </Badge>
            {data.demo_model ? <DemoModelBadge /> : null}
          </div>
          {data.demo_model ? (
            <p className="mt-3 max-w-prose rounded-md bg-yellow-50 p-3 text-sm text-yellow-900 ring-1 ring-yellow-200" data-testid="demo-model-notice">
              This app's model is answered by the built-in demo model on this server: its answers are free samples, not a real model's.
            </p>
          ) : null}
        </div>
        <div className="shrink-0 rounded-lg bg-white p-4 shadow-sm ring-1 ring-gray-200 sm:text-right" data-testid="explore-price">
          <RateCard app={data} />
          <div className="mt-3 flex gap-2 sm:justify-end">
            <Link to={tryIt} className={primaryButton}>
              Try it
            </Link>
            {signedIn ? (
              <button
                type="button"
                className={secondaryButton}
                disabled={isDownloading(data.slug)}
                title="A ready-to-run front-end app for this endpoint; it runs on your own API key, entered in its .env"
                onClick={() => void download({ slug: data.slug, type: data.type, interaction_mode: data.mode })}
              >
                {isDownloading(data.slug) ? 'Downloading...' : 'Download App'}
              </button>
            ) : null}
          </div>
        </div>
      </header>

      <div className="mt-8 space-y-6">
        <Section title="About">
          <p className="text-sm whitespace-pre-line text-gray-700">{data.description || 'The creator has not described this app yet.'}</p>
        </Section>

        <Section
          title="Plans"
          action={
            data.plans.length ? (
              <Link to={data.billing_path} className={secondaryButton}>
                Subscribe to a plan
              </Link>
            ) : null
          }
        >
          {data.plans.length ? (
            <ul className="grid grid-cols-1 gap-4 md:grid-cols-3">
              {data.plans.map((plan) => (
                <PlanCard key={plan.id} plan={plan} />
              ))}
            </ul>
          ) : (
            <p className="text-sm text-gray-600">No plans: every call is paid from your credits at the app's price.</p>
          )}
        </Section>

        <Section title="Inputs">
          <InputsTable fields={data.fields} textInput={data.text_input} mode={data.mode} />
        </Section>

        <Section
          title="API reference"
          action={
            <Link to={tryIt} className={secondaryButton}>
              Try it in the API Test Console
            </Link>
          }
        >
          <ApiReference app={data} />
        </Section>

        {signedIn ? (
          <Section title="Embed on your website">
            <EmbedSnippet slug={data.slug} />
          </Section>
        ) : null}
      </div>
    </div>
  );
}
