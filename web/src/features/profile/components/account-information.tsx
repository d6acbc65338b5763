import type { Profile } from '@tollbooth/contract';
import { TitledCard } from '@/components/ui/titled-card';
import { formatCents, formatDate, formatDollars } from '@/lib/format';

function creditsText(creator: NonNullable<Profile['creator']>): string {
  return Number.isFinite(creator.credits_cents) ? formatCents(creator.credits_cents) : formatDollars(creator.credits);
}

export function AccountInformation({ profile }: { profile: Profile }) {
  const { user, creator } = profile;
  const rows: Array<[string, string]> = [
    ['Account ID', String(user.id)],
    ['Member Since', formatDate(user.date_joined)],
    ['Account Status', user.is_active ? 'Active' : 'Inactive'],
  ];
  if (creator) {
    rows.push(['Plan', creator.plan], ['Credits', creditsText(creator)]);
  }

  return (
    <TitledCard id="account-information" title="Account Information">
      <dl className="mt-4 space-y-4">
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt className="text-sm font-medium text-gray-500">{label}</dt>
            <dd className="mt-1 text-sm break-all text-gray-900">
              {label === 'Account Status' ? (
                <span
                  className={`inline-flex rounded-full px-2 py-0.5 text-xs font-semibold ${
                    user.is_active ? 'bg-green-100 text-green-800' : 'bg-gray-100 text-gray-700'
                  }`}
                >
                  {value}
                </span>
              ) : (
                value
              )}
            </dd>
          </div>
        ))}
      </dl>
    </TitledCard>
  );
}
