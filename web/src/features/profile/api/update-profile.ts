import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Profile, ProfileUpdate } from '@tollbooth/contract';
import { profileQueryKey } from '@/lib/api/profile/get-profile';
import { api } from '@/lib/api-client';

/** The fields the profile form edits. */
export interface ProfileFormValues {
  first_name: string;
  last_name: string;
  username: string;
  display_name: string;
}

/** The PATCH body: the existing user merged with the edits, and the creator's display name (or null). */
export function buildProfileUpdate(profile: Profile, values: ProfileFormValues): ProfileUpdate {
  return {
    user: {
      ...profile.user,
      first_name: values.first_name,
      last_name: values.last_name,
      display_name: values.display_name,
      username: values.username,
    },
    creator: profile.creator ? { display_name: values.display_name } : null,
  };
}

export function updateProfile(body: ProfileUpdate): Promise<Profile> {
  return api.patch<Profile>('/auth/profile/', body, { auth: 'required' });
}

export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateProfile,
    onSuccess: async (profile) => {
      queryClient.setQueryData(profileQueryKey, profile);
      await queryClient.invalidateQueries({ queryKey: profileQueryKey });
    },
  });
}
