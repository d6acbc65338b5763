import type { CatalogApp } from '@tollbooth/contract';
import { Link } from 'react-router';
import { Badge, typeTone } from '@/components/ui/badges';
import { priceSummary, rateCardNow, upcomingPriceSummary } from '@/lib/rate-card';

/** Its model is answered by the built-in demo model: free sample answers, not a real model's. */
export function DemoModelBadge() {
  return (
    <Badge tone="yellow" title="Answered by the built-in demo model: its model's provider is not configured on this server, so answers are free samples">
      Demo model
    </Badge>
  );
}

export function CatalogCard({ app }: { app: CatalogApp }) {
  const card = rateCardNow(app);
  const upcoming = upcomingPriceSummary(app);
  return (
    <li className="relative flex flex-col rounded-lg bg-white p-5 shadow-sm ring-1 ring-gray-200 transition hover:shadow-md hover:ring-indigo-300">
      <div className="flex items-start justify-between gap-3">
        <h2 className="min-w-0 text-base font-semibold text-gray-900">
          <Link
            to={`/explore/${app.slug}`}
            className="break-words focus-visible:outline-none after:absolute after:inset-0 after:rounded-lg focus-visible:after:ring-2 focus-visible:after:ring-indigo-600"
          >
            {app.name}
          </Link>
        </h2>
        {card.form === 'per_call' ? (
          <p className="shrink-0 text-right text-sm font-semibold text-gray-900" data-testid="catalog-price">
            {priceSummary(card).replace(/ per call$/, '')}
            <span className="block text-xs font-normal text-gray-500">per call</span>
          </p>
        ) : (
          // Per token or cost-plus (issue 60): the card in one line.
          <p className="max-w-[11rem] shrink-0 text-right text-xs font-semibold text-gray-900" data-testid="catalog-price">
            {priceSummary(card)}
          </p>
        )}
      </div>
      <p className="mt-1 text-sm text-gray-500">by {app.creator_name}</p>
      <p className="mt-3 line-clamp-3 flex-1 text-sm text-gray-700">{app.description || 'No description.'}</p>
      {upcoming ? <p className="mt-2 text-xs text-amber-700">Price rises to {upcoming}</p> : null}
      <div className="mt-4 flex flex-wrap items-center gap-2">
        <Badge tone={typeTone(app.type)} title="Type">
          {app.type}
        </Badge>
        <Badge tone="indigo" title="Mode">
          {app.mode}
        </Badge>
        {app.demo_model ? <DemoModelBadge /> : null}
        <span className="ml-auto text-xs text-gray-500">
          {app.calls_30d.toLocaleString('en-US')} {app.calls_30d === 1 ? 'call' : 'calls'} in 30 days
        </span>
      </div>
    </li>
  );
}
