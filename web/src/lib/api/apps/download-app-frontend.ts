// GET /api/app/{slug}/download-frontend?type=completion|chat answers a zip archive, so this call
// reads a Blob through apiFetch rather than the JSON client. The hook is shared by every screen with a
// Download button: a download is tracked per slug and a second click is ignored while it runs.

import type { Application, FrontendType } from '@tollbooth/contract';
import { useCallback, useRef, useState } from 'react';
import { apiFetch } from '@/lib/api-client';
import { useAuth } from '@/lib/auth/use-auth';
import { saveBlob } from '@/lib/save-blob';
import { appPath } from './app-keys';

export const DOWNLOAD_FAILED_MESSAGE = 'Failed to download app. Please try again.';

type DownloadableApp = Pick<Application, 'slug' | 'type' | 'interaction_mode'>;

/** A prompt app in chat mode gets the chat front end; everything else the completion one. */
export function frontendTypeOf(app: Pick<Application, 'type' | 'interaction_mode'>): FrontendType {
  return app.type === 'prompt' && app.interaction_mode === 'chat' ? 'chat' : 'completion';
}

/** {slug}-{type}-app.zip, or {slug}-workflow-app.zip for a workflow. */
export function downloadFileName(app: DownloadableApp): string {
  const kind = app.type === 'workflow' ? 'workflow' : frontendTypeOf(app);
  return `${app.slug}-${kind}-app.zip`;
}

/** The file name a Content-Disposition header gives (filename* first, then filename), or null. */
export function fileNameFromContentDisposition(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // Badly encoded: fall back to the plain parameter.
    }
  }
  const plain = /filename\s*=\s*(?:"([^"]*)"|([^;]+))/.exec(header);
  const name = (plain?.[1] ?? plain?.[2])?.trim();
  // Only a base name: never a path.
  return name ? (name.split(/[\\/]/).pop() ?? null) || null : null;
}

export async function downloadAppFrontend(slug: string, type: FrontendType, accessToken: string | null): Promise<{ blob: Blob; fileName: string | null }> {
  const response = await apiFetch(`${appPath(slug)}download-frontend`, {
    query: { type },
    headers: { Accept: 'application/zip, application/json' },
    bearer: accessToken,
  });
  return { blob: await response.blob(), fileName: fileNameFromContentDisposition(response.headers.get('Content-Disposition')) };
}

export function useDownloadApp() {
  const { getAccessToken } = useAuth();
  // The ref guards synchronously against a double click; the state re-renders the buttons.
  const running = useRef(new Set<string>());
  const [downloading, setDownloading] = useState<ReadonlySet<string>>(() => new Set());

  const download = useCallback(
    async (app: DownloadableApp) => {
      if (running.current.has(app.slug)) return;
      running.current.add(app.slug);
      setDownloading(new Set(running.current));
      try {
        const { blob, fileName } = await downloadAppFrontend(app.slug, frontendTypeOf(app), await getAccessToken());
        // The server's name wins (it knows a workflow's kind); the spec's rule is the fallback.
        saveBlob(blob, fileName ?? downloadFileName(app));
      } catch (error) {
        console.error(`Failed to download the front end of ${app.slug}`, error);
        window.alert(DOWNLOAD_FAILED_MESSAGE);
      } finally {
        running.current.delete(app.slug);
        setDownloading(new Set(running.current));
      }
    },
    [getAccessToken],
  );

  const isDownloading = useCallback((slug: string) => downloading.has(slug), [downloading]);

  return { download, isDownloading };
}
