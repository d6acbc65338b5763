// Download App: the owner's app described once (prompt input schema or Dify app info), turned into
// a generated front-end app and streamed as a deterministic zip.
import type { Readable } from 'node:stream';
import {
  type AppDescription,
  describePromptApp,
  describeWorkflowApp,
  type FrontendKind,
  perCallCard,
  type RateCard,
  type StoredDifyAppInfo,
} from '@tollbooth/contract';
import { type AppRow, type AppsService, appNotFound } from '../apps/service.ts';
import type { PromptsService } from '../prompts/service.ts';
import { frontendBaseName, generateFrontendFiles } from './generate-frontend.ts';
import { zipFiles } from './zip.ts';

/** The Dify app info stored with a workflow app's configuration, or null when it was never fetched. */
export type ReadWorkflowAppInfo = (app: AppRow) => Promise<StoredDifyAppInfo | null>;

export interface FrontendDownload {
  fileName: string;
  stream: Readable;
}

export interface DownloadsService {
  /**
   * What the generated app will be built from: for anyone who may call the app (a live public or
   * embed app; the owner for any status), else the app's 404. The description holds only what a
   * caller sees anyway (name, price, inputs), never the owner's prompt or provider settings; the
   * generated app runs on the key its user puts in its .env.
   */
  describeApp(slug: string, viewerId: string, requestedKind: FrontendKind | undefined): Promise<AppDescription>;
  downloadFrontend(slug: string, viewerId: string, requestedKind: FrontendKind | undefined): Promise<FrontendDownload>;
}

export function createDownloadsService({
  apps,
  prompts,
  publicUrl,
  // The workflows feature keeps Dify's answer to /info and /parameters with the workflow
  // configuration and passes its reader here; without one, workflow apps get the generic form.
  readWorkflowAppInfo = async () => null,
}: {
  apps: AppsService;
  prompts: Pick<PromptsService, 'readActivePromptConfig'>;
  publicUrl: string;
  readWorkflowAppInfo?: ReadWorkflowAppInfo;
}): DownloadsService {
  /** The app's description and its rate card in force (issue 60: the generated app shows the card). */
  const describeCallable = async (
    slug: string,
    viewerId: string,
    requestedKind: FrontendKind | undefined,
  ): Promise<{ description: AppDescription; pricing: RateCard }> => {
    const app = await apps.findCallableApp(slug);
    // The gateway's rule (checkCallAccess): owners any status; others a live public or embed app.
    const callable = app && (app.owner_id === viewerId || (app.status === 'live' && (app.visibility === 'public' || app.visibility === 'embed')));
    if (!app || !callable) throw appNotFound();
    const pricing = app.pricing ?? perCallCard(Number(app.price_cents));
    if (app.type === 'workflow') return { description: describeWorkflowApp(app, await readWorkflowAppInfo(app)), pricing };
    // The spec's rule: a chat-mode prompt app gets the chat app, otherwise completion; an explicit type wins.
    const kind = requestedKind ?? (app.interaction_mode === 'chat' ? 'chat' : 'completion');
    const config = await prompts.readActivePromptConfig(app.id);
    return { description: describePromptApp(app, config.active_version, kind), pricing };
  };

  return {
    describeApp: async (slug, viewerId, requestedKind) => (await describeCallable(slug, viewerId, requestedKind)).description,
    async downloadFrontend(slug, viewerId, requestedKind) {
      const { description, pricing } = await describeCallable(slug, viewerId, requestedKind);
      const files = await generateFrontendFiles(description, { tollboothUrl: publicUrl.replace(/\/+$/, ''), pricing });
      const baseName = frontendBaseName(description);
      return { fileName: `${baseName}.zip`, stream: zipFiles(files, baseName) };
    },
  };
}
