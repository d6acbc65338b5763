import type { Profile } from '@tollbooth/contract';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { FormAlert } from '@/components/ui/form-alert';
import { inputField, primaryButton } from '@/components/ui/styles';
import { getErrorMessage, isUnauthorizedError } from '@/lib/errors';
import { buildProfileUpdate, type ProfileFormValues, useUpdateProfile } from '../api/update-profile';

export const SUCCESS_BANNER_MS = 3000;

function initialValues(profile: Profile): ProfileFormValues {
  return {
    first_name: profile.user.first_name ?? '',
    last_name: profile.user.last_name ?? '',
    username: profile.user.username ?? '',
    display_name: profile.user.display_name || profile.creator?.display_name || '',
  };
}

const editableFields: Array<{ name: keyof ProfileFormValues; label: string; autoComplete: string }> = [
  { name: 'first_name', label: 'First Name', autoComplete: 'given-name' },
  { name: 'last_name', label: 'Last Name', autoComplete: 'family-name' },
  { name: 'username', label: 'Username', autoComplete: 'username' },
  { name: 'display_name', label: 'Display Name', autoComplete: 'nickname' },
];

export function ProfileForm({ profile }: { profile: Profile }) {
  const id = useId();
  const [values, setValues] = useState(() => initialValues(profile));
  const [showSuccess, setShowSuccess] = useState(false);
  const updateProfile = useUpdateProfile();

  useEffect(() => {
    if (!showSuccess) return;
    const timer = window.setTimeout(() => setShowSuccess(false), SUCCESS_BANNER_MS);
    return () => window.clearTimeout(timer);
  }, [showSuccess]);

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setShowSuccess(false);
    updateProfile.mutate(buildProfileUpdate(profile, values), {
      onSuccess: () => setShowSuccess(true),
    });
  }

  const error = updateProfile.error;
  // A 401 is only logged (by the API client), never shown.
  const errorText = error && !isUnauthorizedError(error) ? getErrorMessage(error) : null;

  return (
    <form onSubmit={handleSubmit} noValidate className="rounded-lg bg-white p-6 shadow-sm ring-1 ring-gray-200">
      <h2 className="text-lg font-semibold text-gray-900">Personal Information</h2>

      {showSuccess ? (
        <div role="status" className="mt-4 rounded-md bg-green-50 p-3 text-sm font-medium text-green-800 ring-1 ring-green-200">
          Profile updated successfully!
        </div>
      ) : null}
      <FormAlert message={errorText} className="mt-4" />

      <div className="mt-6 grid grid-cols-1 gap-6 sm:grid-cols-2">
        {editableFields.map((field) => (
          <div key={field.name}>
            <label htmlFor={`${id}-${field.name}`} className="block text-sm font-medium text-gray-700">
              {field.label}
            </label>
            <input
              id={`${id}-${field.name}`}
              name={field.name}
              type="text"
              autoComplete={field.autoComplete}
              value={values[field.name]}
              onChange={(event) => setValues((current) => ({ ...current, [field.name]: event.target.value }))}
              className={`${inputField} mt-1`}
            />
          </div>
        ))}
        <div className="sm:col-span-2">
          <label htmlFor={`${id}-email`} className="block text-sm font-medium text-gray-700">
            Email
          </label>
          <input
            id={`${id}-email`}
            name="email"
            type="email"
            value={profile.user.email ?? ''}
            disabled
            aria-describedby={`${id}-email-note`}
            className={`${inputField} mt-1`}
          />
          <p id={`${id}-email-note`} className="mt-1 text-xs text-gray-500">
            Email cannot be changed through this form.
          </p>
        </div>
      </div>

      <div className="mt-6 flex justify-end">
        <button type="submit" className={primaryButton} disabled={updateProfile.isPending}>
          {updateProfile.isPending ? 'Saving...' : 'Save Changes'}
        </button>
      </div>
    </form>
  );
}
