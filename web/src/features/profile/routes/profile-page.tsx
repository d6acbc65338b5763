import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { PageSpinner } from '@/components/ui/spinner';
import { textLink } from '@/components/ui/styles';
import { useProfile } from '@/lib/api/profile/get-profile';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { AccountInformation } from '../components/account-information';
import { OwnKeysSection } from '../components/own-keys-section';
import { ProfileForm } from '../components/profile-form';

export const PROFILE_FETCH_ERROR = 'Failed to fetch profile';

function ProfileFetchError({ error }: { error: unknown }) {
  const detail = getErrorMessage(error);
  return (
    <div role="alert" className="rounded-md bg-red-50 p-4 text-sm text-red-700 ring-1 ring-red-200">
      <p className="font-medium">{PROFILE_FETCH_ERROR}</p>
      {detail !== PROFILE_FETCH_ERROR ? <p className="mt-1">{detail}</p> : null}
    </div>
  );
}

/** keysSection: the API keys section (from the keys feature), composed in by the router. */
export function ProfilePage({ keysSection }: { keysSection?: ReactNode }) {
  const profile = useProfile();

  return (
    <div className="mx-auto max-w-5xl px-4 py-8 sm:px-6 lg:px-8">
      <h1 className="text-2xl font-bold tracking-tight text-gray-900 sm:text-3xl">Profile Settings</h1>
      <p className="mt-1 text-sm text-gray-600">Manage your personal information and account details.</p>
      <p className="mt-2 text-sm">
        <Link to="/money" className={textLink}>
          Credits, earnings and statement (Add credits) →
        </Link>
        <span className="mx-2 text-gray-300">·</span>
        <Link to="/settings/webhooks" className={textLink}>
          Webhooks &amp; alerts →
        </Link>
      </p>

      <div className="mt-8">
        {profile.data ? (
          <div className="space-y-6">
            <div className="grid grid-cols-1 gap-6 lg:grid-cols-3">
              <div className="lg:col-span-2">
                <ProfileForm key={profile.data.user.id} profile={profile.data} />
              </div>
              <AccountInformation profile={profile.data} />
            </div>
            {keysSection}
            <OwnKeysSection />
          </div>
        ) : profile.isError ? (
          // A 401 is only logged (by the API client), never shown as a page error.
          isUnauthorizedError(profile.error) ? null : (
            <ProfileFetchError error={profile.error} />
          )
        ) : (
          <PageSpinner message="Loading profile..." />
        )}
      </div>
    </div>
  );
}
