import type { Application } from '@tollbooth/contract';
import { rateCardLines } from '@tollbooth/contract';
import { Link } from 'react-router';
import { isPlainPerCall } from '@/components/pricing/price-form.utils';
import { cardOfApp, upcomingCardOfApp } from '@/components/pricing/rate-card-panel';
import { textLink } from '@/components/ui/styles';
import { TitledCard } from '@/components/ui/titled-card';
import { useAppUsage } from '@/lib/api/apps/get-app-usage';
import { analyticsLink } from '@/lib/app-endpoint';
import { formatCents, formatDate, formatUpcomingPrice } from '@/lib/format';
import { formatCount } from '@/lib/format-count';

function Row({ label, value }: { label: string; value: string }) {
  return (
    <div className="flex items-baseline justify-between gap-4">
      <dt className="text-sm text-gray-500">{label}</dt>
      <dd className="text-sm font-medium break-all text-gray-900">{value}</dd>
    </div>
  );
}

function AnalyticsCard({ app }: { app: Application }) {
  // Usage is owner-only; other viewers see dashes.
  const usage = useAppUsage(app.slug, { enabled: app.is_owner });
  const pending = usage.isPending && app.is_owner;
  const invocations = usage.data ? formatCount(usage.data.total_invocations) : pending ? '…' : '—';
  const revenue = usage.data ? formatCents(usage.data.total_revenue_cents) : pending ? '…' : '—';

  return (
    <TitledCard id="sidebar-analytics" title="Analytics">
      <dl className="mt-4 space-y-3" aria-busy={pending}>
        <Row label="Total Invocations" value={invocations} />
        <Row label="Total Revenue" value={revenue} />
      </dl>
      <Link to={analyticsLink(app.slug)} className={`${textLink} mt-4 inline-block text-sm`}>
        View detailed analytics
      </Link>
    </TitledCard>
  );
}

function DetailsCard({ app }: { app: Application }) {
  return (
    <TitledCard id="sidebar-details" title="Details">
      <dl className="mt-4 space-y-3">
        <Row label="Created" value={formatDate(app.created_at)} />
        <Row label="Updated" value={formatDate(app.updated_at)} />
        {isPlainPerCall(app.pricing) ? (
          <Row label="Price per Call" value={formatCents(app.price_cents)} />
        ) : (
          <Row label="Price" value={rateCardLines(cardOfApp(app)).join(' · ')} />
        )}
        {isPlainPerCall(app.upcoming_pricing) ? (
          formatUpcomingPrice(app) && <Row label="Upcoming Price" value={formatUpcomingPrice(app)!} />
        ) : upcomingCardOfApp(app) && app.upcoming_price_at ? (
          <Row label="Upcoming Price" value={`${rateCardLines(upcomingCardOfApp(app)!).join(' · ')} from ${formatDate(app.upcoming_price_at)}`} />
        ) : null}
        <Row label="Creator" value={app.creator_name || 'N/A'} />
      </dl>
    </TitledCard>
  );
}

export function AppSidebar({ app }: { app: Application }) {
  return (
    <aside className="space-y-6">
      <AnalyticsCard app={app} />
      <DetailsCard app={app} />
    </aside>
  );
}
