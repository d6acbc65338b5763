import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { AuthContext } from '@/lib/auth/auth-context';
import { expectAnswers } from '@/testing/answers';
import { signedInAuth } from '@/testing/test-utils';
import { DOWNLOAD_FAILED_MESSAGE, downloadFileName, fileNameFromContentDisposition, frontendTypeOf, useDownloadApp } from './download-app-frontend';

const prompt = { slug: 'haiku', type: 'prompt', interaction_mode: 'completion' } as const;
const chatPrompt = { slug: 'buddy', type: 'prompt', interaction_mode: 'chat' } as const;
const workflow = { slug: 'flow', type: 'workflow', interaction_mode: 'chat' } as const;

describe('file names and front-end types', () => {
  it('uses chat only for prompt apps in chat mode', () => {
    expect(frontendTypeOf(prompt)).toBe('completion');
    expect(frontendTypeOf(chatPrompt)).toBe('chat');
    expect(frontendTypeOf(workflow)).toBe('completion');
  });

  it('names the archive {slug}-{type}-app.zip, or {slug}-workflow-app.zip', () => {
    expect(downloadFileName(prompt)).toBe('haiku-completion-app.zip');
    expect(downloadFileName(chatPrompt)).toBe('buddy-chat-app.zip');
    expect(downloadFileName(workflow)).toBe('flow-workflow-app.zip');
  });
});

function renderDownloadHook() {
  const auth = signedInAuth();
  const wrapper = ({ children }: { children: ReactNode }) => <AuthContext.Provider value={auth}>{children}</AuthContext.Provider>;
  return renderHook(() => useDownloadApp(), { wrapper });
}

describe('fileNameFromContentDisposition', () => {
  it('reads filename* first, then filename, and keeps only a base name', () => {
    const name = fileNameFromContentDisposition;
    expectAnswers(
      name,
      ['attachment; filename="haiku-chat-app.zip"', "attachment; filename=a.zip; filename*=UTF-8''caf%C3%A9-app.zip"],
      ['haiku-chat-app.zip', 'café-app.zip'],
    );
    expectAnswers(name, ['attachment; filename=plain.zip', 'attachment; filename="../../etc/x.zip"'], ['plain.zip', 'x.zip']);
    expectAnswers(name, ['attachment', null], [null, null]);
  });
});

describe('useDownloadApp', () => {
  it('saves the zip under its name, ignores a second click while it runs', async () => {
    let finish: (response: Response) => void = () => {};
    const fetchMock = vi.fn(() => new Promise<Response>((resolve) => (finish = resolve)));
    vi.stubGlobal('fetch', fetchMock);
    const createObjectURL = vi.fn(() => 'blob:zip');
    // jsdom has no object URLs; this file's environment is thrown away afterwards.
    URL.createObjectURL = createObjectURL;
    URL.revokeObjectURL = vi.fn();
    const clicked: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    });

    const { result } = renderDownloadHook();
    let first: Promise<void> = Promise.resolve();
    act(() => {
      first = result.current.download(workflow);
    });
    await waitFor(() => expect(result.current.isDownloading('flow')).toBe(true));
    await act(() => result.current.download(workflow));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/app/flow/download-frontend?type=completion');
    expect(new Headers(init.headers).get('Authorization')).toBe('Bearer test-token');

    await act(async () => {
      finish(new Response(new Blob(['PK']), { status: 200, headers: { 'Content-Type': 'application/zip' } }));
      await first;
    });
    expect(result.current.isDownloading('flow')).toBe(false);
    expect(clicked).toEqual(['flow-workflow-app.zip']);
    expect(createObjectURL).toHaveBeenCalledTimes(1);
  });

  it("saves the file under the server's name when it gives one", async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(
        async () =>
          new Response(new Blob(['PK']), {
            status: 200,
            headers: { 'Content-Type': 'application/zip', 'Content-Disposition': 'attachment; filename="haiku-chat-app.zip"' },
          }),
      ),
    );
    URL.createObjectURL = vi.fn(() => 'blob:zip');
    URL.revokeObjectURL = vi.fn();
    const clicked: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    });
    const { result } = renderDownloadHook();
    await act(() => result.current.download(prompt));
    expect(clicked).toEqual(['haiku-chat-app.zip']);
  });

  it('alerts "Failed to download app. Please try again." on failure', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('{"code":"not_found","message":"Not found","status":404}', { status: 404 })),
    );
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});

    const { result } = renderDownloadHook();
    await act(() => result.current.download(chatPrompt));
    expect(alert).toHaveBeenCalledWith(DOWNLOAD_FAILED_MESSAGE);
    expect(result.current.isDownloading('buddy')).toBe(false);
  });
});
