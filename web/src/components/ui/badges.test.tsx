import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ModeBadge, StatusBadge, TypeBadge, VisibilityBadge } from './badges';

describe('badges', () => {
  it.each(Object.entries({ live: 'green', draft: 'yellow', archived: 'gray', 'something-else': 'gray' }))('status %s is %s', (status, tone) => {
    render(<StatusBadge status={status} />);
    expect(screen.getByText(status).dataset.tone).toBe(tone);
  });

  it.each(Object.entries({ public: 'green', private: 'gray', embed: 'purple' }))('visibility %s is %s', (visibility, tone) => {
    render(<VisibilityBadge visibility={visibility} />);
    expect(screen.getByText(visibility).dataset.tone).toBe(tone);
  });

  it.each(Object.entries({ workflow: 'blue', prompt: 'green' }))('type %s is %s', (type, tone) => {
    render(<TypeBadge type={type} />);
    expect(screen.getByText(type).dataset.tone).toBe(tone);
  });

  it('names the interaction mode Chat or Completion', () => {
    render(
      <>
        <ModeBadge mode="chat" />
        <ModeBadge mode="completion" />
      </>,
    );
    expect(screen.getByText('Chat')).toBeTruthy();
    expect(screen.getByText('Completion')).toBeTruthy();
  });
});
