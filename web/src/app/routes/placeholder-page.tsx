import { Link, useParams } from 'react-router';
import { textLink } from '../../components/ui/styles';

interface PlaceholderPageProps {
  /** The screen's title from the spec; `{slug}` is replaced by the route's slug. */
  title: string;
  subtitle?: string;
}

/** Stands in for a screen whose feature lands in a later issue, so its route, title and guard exist today. */
export function PlaceholderPage({ title, subtitle }: PlaceholderPageProps) {
  const { slug, appSlug } = useParams();
  const heading = title.replace('{slug}', slug ?? appSlug ?? '');
  return (
    <div className="mx-auto max-w-7xl px-4 py-8 sm:px-6 lg:px-8">
      <h1 className="text-2xl font-bold tracking-tight text-gray-900 sm:text-3xl">{heading}</h1>
      {subtitle ? <p className="mt-1 text-sm text-gray-600">{subtitle}</p> : null}
      <div className="mt-8 rounded-lg border border-dashed border-gray-300 bg-white p-8 text-center text-gray-600">
        <p>This screen is on its way in an upcoming release.</p>
        <Link to="/dashboard" className={`${textLink} mt-4 inline-block`}>
          Back to the dashboard
        </Link>
      </div>
    </div>
  );
}
