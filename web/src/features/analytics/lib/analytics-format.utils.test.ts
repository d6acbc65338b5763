import { describe, expect, it } from 'vitest';
import { expectAnswers } from '@/testing/answers';
import {
  endUserLabel,
  errorTypeLabel,
  formatCount,
  formatDayLabel,
  formatDayTick,
  formatLastUsed,
  formatModelCost,
  formatPercent,
  formatRevenue,
  formatSeconds,
  formatSuccessRate,
  invocationOutcomeClass,
  invocationStatusClass,
  rejectionLabel,
  totalTokens,
  truncateId,
} from './analytics-format.utils';

describe('analytics formats', () => {
  it('groups thousands in counts', () => {
    expectAnswers(formatCount, [0, 1234, 10_000_000], ['0', '1,234', '10,000,000']);
  });

  it('shows success rates with one decimal and %', () => {
    expectAnswers(formatPercent, [66.67, 100, 0, 71.43], ['66.7%', '100.0%', '0.0%', '71.4%']);
  });

  it('shows seconds with three decimals in tables and two on the card', () => {
    expectAnswers((seconds: number) => formatSeconds(seconds, 3), [1.32, 0.0005], ['1.320s', '0.001s']);
    expectAnswers((seconds: number) => formatSeconds(seconds, 2), [1.32, 2], ['1.32s', '2.00s']);
  });

  it('shows revenue in dollars with two decimals', () => {
    expect(formatRevenue(4.5)).toBe('$4.50');
    expect(formatRevenue(1234.5)).toBe('$1,234.50');
  });

  it('formats model costs to the micro-dollar', () => {
    expectAnswers(formatModelCost, [0.01762, 0.000003, 1.5, 0, -7.62], ['$0.01762', '$0.000003', '$1.50', '$0.00', '−$7.62']);
  });

  it('shows Never for an app never used, else a local date', () => {
    expect(formatLastUsed(null)).toBe('Never');
    expect(formatLastUsed('')).toBe('Never');
    expect(formatLastUsed('2024-05-30T12:00:00.000Z')).toBe(new Date('2024-05-30T12:00:00.000Z').toLocaleDateString());
  });

  it('cuts invocation ids to eight characters and an ellipsis', () => {
    expect(truncateId('0123456789abcdef')).toBe('01234567...');
  });

  it('names anonymous users, adds up tokens and colours statuses', () => {
    expectAnswers(endUserLabel, [null, '', 'ada'], ['Anonymous', 'Anonymous', 'ada']);
    expect(totalTokens({ input_tokens: 1200, output_tokens: 34 })).toBe('1,234');
    expect(invocationStatusClass('success')).toContain('green');
    expect(invocationStatusClass('error')).toContain('red');
  });

  it('colours outcomes: success green, failed red, rejected amber (not held against the app)', () => {
    const colours = ['success', 'failed', 'rejected', 'something-else'].map((outcome) => invocationOutcomeClass(outcome));
    for (const [index, colour] of ['green', 'red', 'amber', 'red'].entries()) expect(colours[index]).toContain(colour);
    expect(errorTypeLabel('', 'success')).toBe('—');
    expect(errorTypeLabel('unauthorized', 'rejected')).toBe('unauthorized');
    expect(errorTypeLabel(' ', 'failed')).toBe('Unknown Error');
  });

  it('says in words what each rejection was', () => {
    expect(rejectionLabel('not_found')).toContain('(404)');
    expectAnswers(
      rejectionLabel,
      ['unauthorized', 'invalid_param', 'insufficient_credits'],
      ['Missing or bad API key (401)', 'Invalid inputs (400)', 'Not enough credit (402)'],
    );
    expectAnswers(rejectionLabel, ['rate_limited', 'something_new', ''], ['Rate limited (429)', 'Other reason', 'Unknown reason']);
    expectAnswers(
      rejectionLabel,
      ['not_chat_app', 'wrong_route'],
      ['Chat call to an app that is not a chat app (400)', "Wrong endpoint for the app's mode (400)"],
    );
  });

  it('labels chart days in UTC', () => {
    expectAnswers(formatDayTick, ['2024-03-05', 'not a day'], ['Mar 5', 'not a day']);
    expect(formatDayLabel('2024-03-05')).toBe('Mar 5, 2024');
  });
});

describe('formatSuccessRate', () => {
  it('shows – (no data) when no call succeeded or failed, not 0.0%', () => {
    expect([formatSuccessRate(0, 0), formatSuccessRate(0, 3), formatSuccessRate(66.666, 3)]).toEqual(['–', '0.0%', '66.7%']);
  });
});
