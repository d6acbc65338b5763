// Saving the prompt builder, all or nothing: the prompt configuration (PATCH /api/app/{slug}/prompt/,
// a new version when the prompts or schemas changed) first, then the application (PATCH
// /api/app/{slug}/); on create the application (POST /api/app/) must exist first, and is deleted
// again when its configuration is refused.

import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Application, PromptConfig } from '@tollbooth/contract';
import { appKeys } from '@/lib/api/apps/app-keys';
import { createApp } from '@/lib/api/apps/create-app';
import { deleteApp } from '@/lib/api/apps/delete-app';
import { updateApp } from '@/lib/api/apps/update-app';
import { promptKeys } from '@/lib/api/prompts/prompt-keys';
import { buildCreateAppBody, buildPromptConfigBody, buildUpdateAppBody, type PromptDraft } from '../lib/prompt-builder.utils';
import { updatePromptConfig } from './update-prompt-config';

export interface SavePromptAppInput {
  draft: PromptDraft;
  /** The application's slug once it exists; null creates it. */
  savedSlug: string | null;
  /**
   * Called once a new application exists with its configuration (or could not be deleted after its
   * configuration was refused), so a later failure is retried as an update instead of creating a
   * second application.
   */
  onCreated?: (app: Application) => void;
  /** The saved app is priced other than whole cents per call and the builder's price was left alone: its card is kept (issue 60). */
  keepCard?: boolean;
}

export interface SavedPromptApp {
  app: Application;
  config: PromptConfig;
}

export async function savePromptApp({ draft, savedSlug, onCreated, keepCard = false }: SavePromptAppInput): Promise<SavedPromptApp> {
  // All or nothing: the prompt configuration is what the server may refuse (a template that cannot
  // render, a bad schema), so it is saved before anything else is changed, and a new application
  // whose configuration is refused is deleted again.
  if (savedSlug === null) {
    // The server picks the slug from the name (adding -2, -3… when taken) and creates a draft.
    let app = await createApp(buildCreateAppBody(draft));
    let config: PromptConfig;
    try {
      config = await updatePromptConfig(app.slug, buildPromptConfigBody(draft));
    } catch (refused) {
      await deleteApp(app.slug).catch(() => onCreated?.(app));
      throw refused;
    }
    onCreated?.(app);
    // Published only once its configuration is saved: a live app never answers from the defaults.
    if (draft.status !== app.status) app = await updateApp({ slug: app.slug, changes: { status: draft.status } });
    return { app, config };
  }
  const config = await updatePromptConfig(savedSlug, buildPromptConfigBody(draft));
  const { price_cents, ...rest } = buildUpdateAppBody(draft);
  const app = await updateApp({ slug: savedSlug, changes: keepCard ? rest : { ...rest, price_cents } });
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
