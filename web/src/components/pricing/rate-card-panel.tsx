// An app's rate card in words (issue 60), and the announced card with the date it applies from:
// shown where the detail pages show the price today. A card other than a whole-cent price per call
// is changed with the application page's Edit (its price form chooser).
import type { Application, RateCard } from '@tollbooth/contract';
import { Link } from 'react-router';
import { textLink } from '@/components/ui/styles';
import { formatDateTime } from '@/lib/format';
import { priceLines, rateCardNow, upcomingRateCard } from '@/lib/rate-card';

type PricedApp = Pick<Application, 'slug' | 'price_cents' | 'pricing' | 'upcoming_price_cents' | 'upcoming_pricing' | 'upcoming_price_at'>;

/** The card in force: the app's `pricing`, else its whole-cent price per call (lib/rate-card, as every screen reads it). */
export const cardOfApp = (app: Pick<Application, 'price_cents' | 'pricing'>): RateCard => rateCardNow(app);

/** The announced card, or null. */
export const upcomingCardOfApp = (app: Pick<Application, 'price_cents' | 'upcoming_price_cents' | 'upcoming_pricing' | 'upcoming_price_at'>): RateCard | null =>
  upcomingRateCard(app)?.card ?? null;

export function RateCardPanel({ app, editLink = false, className = '' }: { app: PricedApp; editLink?: boolean; className?: string }) {
  const upcoming = upcomingCardOfApp(app);
  return (
    <section
      aria-labelledby={`rate-card-${app.slug}`}
      className={`rounded-md bg-gray-50 p-4 text-sm ring-1 ring-gray-200 ${className}`}
      data-testid="rate-card"
    >
      <h3 id={`rate-card-${app.slug}`} className="font-semibold text-gray-900">
        Price
      </h3>
      <ul className="mt-1 text-gray-800">
        {priceLines(cardOfApp(app)).map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      {upcoming && app.upcoming_price_at ? (
        <div className="mt-3 rounded-md bg-amber-50 p-2 text-amber-900 ring-1 ring-amber-300" data-testid="upcoming-rate-card">
          <p className="font-medium">From {formatDateTime(app.upcoming_price_at)}</p>
          <ul>
            {priceLines(upcoming).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {editLink ? (
        <p className="mt-2 text-gray-600">
          Change the price form with Edit on the{' '}
          <Link to={`/applications/${app.slug}`} className={textLink}>
            application page
          </Link>
          .
        </p>
      ) : null}
    </section>
  );
}
