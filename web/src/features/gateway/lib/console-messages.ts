// The console's texts from the spec (sections 5 and 8).
import { getErrorMessage } from '@/lib/errors';

export const COMPLETION_INPUT_REQUIRED = 'Please provide app slug and input';
export const CHAT_INPUT_REQUIRED = 'Please provide app slug and chat query';
/** What a Test button says to an anonymous visitor who has not pasted an API key (instead of a 401). */
export const API_KEY_REQUIRED = 'An API key is needed to test as a visitor: paste one of your API keys above, or sign in to test with your session.';

export const completionFailedMessage = (error: unknown) => `Completion test failed: ${getErrorMessage(error)}`;
export const chatFailedMessage = (error: unknown) => `Chat test failed: ${getErrorMessage(error)}`;

/** The answer's created_at (Unix seconds) as a local date and time. */
export function formatCreatedAt(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? 'N/A' : date.toLocaleString();
}
