// Badge colours (spec section 4): status live green, draft yellow, archived or other gray;
// visibility public green, private gray, embed purple; type workflow blue, other green.
import type { ReactNode } from 'react';

const tones = {
  green: 'bg-green-100 text-green-800',
  yellow: 'bg-yellow-100 text-yellow-800',
  gray: 'bg-gray-100 text-gray-800',
  blue: 'bg-blue-100 text-blue-800',
  purple: 'bg-purple-100 text-purple-800',
  indigo: 'bg-indigo-100 text-indigo-800',
} as const;

export type BadgeTone = keyof typeof tones;

export function Badge({ tone, children, title }: { tone: BadgeTone; children: ReactNode; title?: string }) {
  return (
    <span title={title} data-tone={tone} className={`inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold ${tones[tone]}`}>
      {children}
    </span>
  );
}

export function statusTone(status: string): BadgeTone {
  if (status === 'live') return 'green';
  if (status === 'draft') return 'yellow';
  return 'gray';
}

export function visibilityTone(visibility: string): BadgeTone {
  if (visibility === 'public') return 'green';
  if (visibility === 'embed') return 'purple';
  return 'gray';
}

export function typeTone(type: string): BadgeTone {
  return type === 'workflow' ? 'blue' : 'green';
}

/** A value shown as it is, in the tone its kind gives it, titled with the kind. */
function ValueBadge({ value, kind, tone }: { value: string; kind: string; tone: (value: string) => BadgeTone }) {
  return (
    <Badge tone={tone(value)} title={kind}>
      {value}
    </Badge>
  );
}

export const StatusBadge = ({ status }: { status: string }) => <ValueBadge value={status} kind="Status" tone={statusTone} />;
export const VisibilityBadge = ({ visibility }: { visibility: string }) => <ValueBadge value={visibility} kind="Visibility" tone={visibilityTone} />;
export const TypeBadge = ({ type }: { type: string }) => <ValueBadge value={type} kind="Type" tone={typeTone} />;

/** The interaction mode of a prompt app: Chat or Completion. */
export function ModeBadge({ mode }: { mode: string }) {
  return (
    <Badge tone="indigo" title="Interaction mode">
      {mode === 'chat' ? 'Chat' : 'Completion'}
    </Badge>
  );
}
