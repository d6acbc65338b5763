// Saving the prompt builder: the application (POST /api/app/ on create, PATCH /api/app/{slug}/ on
// edit), then its prompt configuration (PATCH /api/app/{slug}/prompt/, a new version when the
// prompts or schemas changed).

import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Application, PromptConfig } from '@tollbooth/contract';
import { appKeys } from '@/lib/api/apps/app-keys';
import { createApp } from '@/lib/api/apps/create-app';
import { updateApp } from '@/lib/api/apps/update-app';
import { promptKeys } from '@/lib/api/prompts/prompt-keys';
import { buildCreateAppBody, buildPromptConfigBody, buildUpdateAppBody, type PromptDraft } from '../lib/prompt-builder.utils';
import { updatePromptConfig } from './update-prompt-config';

export interface SavePromptAppInput {
  draft: PromptDraft;
  /** The application's slug once it exists; null creates it. */
  savedSlug: string | null;
  /**
   * Called as soon as a new application exists, before its configuration is saved, so a failure
   * after that point is retried as an update instead of creating a second application.
   */
  onCreated?: (app: Application) => void;
}

export interface SavedPromptApp {
  app: Application;
  config: PromptConfig;
}

export async function savePromptApp({ draft, savedSlug, onCreated }: SavePromptAppInput): Promise<SavedPromptApp> {
  let app: Application;
  if (savedSlug === null) {
    // The server picks the slug from the name (adding -2, -3… when taken) and creates a draft.
    app = await createApp(buildCreateAppBody(draft));
    onCreated?.(app);
    if (draft.status !== app.status) app = await updateApp({ slug: app.slug, changes: { status: draft.status } });
  } else {
    app = await updateApp({ slug: savedSlug, changes: buildUpdateAppBody(draft) });
  }
  const config = await updatePromptConfig(app.slug, buildPromptConfigBody(draft));
  return { app, config };
}

export function useSavePromptApp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: savePromptApp,
    onSuccess: async ({ app, config }) => {
      queryClient.setQueryData(appKeys.detail(app.slug), app);
      queryClient.setQueryData(promptKeys.config(app.slug), config);
      await queryClient.invalidateQueries({ queryKey: appKeys.lists() });
    },
  });
}
