// The prompt's version history (GET /api/app/{slug}/prompt/versions/) and rollback
// (POST …/versions/{n}/activate/), which makes an earlier version the active one again.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { PromptConfig, PromptVersion } from '@tollbooth/contract';
import { promptKeys, promptPath } from '@/lib/api/prompts/prompt-keys';
import { api } from '@/lib/api-client';

export interface PromptVersionList {
  active_version: number;
  versions: PromptVersion[];
}

export const promptVersionsKey = (slug: string) => [...promptKeys.config(slug), 'versions'] as const;

/** Fetched only while `enabled` (the Version History tab is open). */
export function usePromptVersions(slug: string, { enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({
    enabled,
    queryKey: promptVersionsKey(slug),
    queryFn: ({ signal }) => api.get<PromptVersionList>(`${promptPath(slug)}versions/`, { auth: 'required', signal }),
  });
}

export function useActivatePromptVersion(slug: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (version: number) => api.post<PromptConfig>(`${promptPath(slug)}versions/${version}/activate/`, undefined, { auth: 'required' }),
    onSuccess: async (config) => {
      queryClient.setQueryData(promptKeys.config(slug), config);
      await queryClient.invalidateQueries({ queryKey: promptVersionsKey(slug) });
    },
  });
}
