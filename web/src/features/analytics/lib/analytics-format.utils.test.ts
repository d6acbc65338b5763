import { describe, expect, it } from 'vitest';
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
    expect(formatCount(0)).toBe('0');
    expect(formatCount(1234)).toBe('1,234');
    expect(formatCount(10_000_000)).toBe('10,000,000');
  });

  it('shows success rates with one decimal and %', () => {
    expect(formatPercent(66.67)).toBe('66.7%');
    expect(formatPercent(100)).toBe('100.0%');
    expect(formatPercent(0)).toBe('0.0%');
    expect(formatPercent(71.43)).toBe('71.4%');
  });

  it('shows seconds with three decimals in tables and two on the card', () => {
    expect(formatSeconds(1.32, 3)).toBe('1.320s');
    expect(formatSeconds(0.0005, 3)).toBe('0.001s');
    expect(formatSeconds(1.32, 2)).toBe('1.32s');
    expect(formatSeconds(2, 2)).toBe('2.00s');
  });

  it('shows revenue in dollars with two decimals', () => {
    expect(formatRevenue(4.5)).toBe('$4.50');
    expect(formatRevenue(1234.5)).toBe('$1,234.50');
  });

  it('formats model costs to the micro-dollar', () => {
    expect(formatModelCost(0.01762)).toBe('$0.01762');
    expect(formatModelCost(0.000003)).toBe('$0.000003');
    expect(formatModelCost(1.5)).toBe('$1.50');
    expect(formatModelCost(0)).toBe('$0.00');
    expect(formatModelCost(-7.62)).toBe('−$7.62');
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
    expect(endUserLabel(null)).toBe('Anonymous');
    expect(endUserLabel('')).toBe('Anonymous');
    expect(endUserLabel('ada')).toBe('ada');
    expect(totalTokens({ input_tokens: 1200, output_tokens: 34 })).toBe('1,234');
    expect(invocationStatusClass('success')).toContain('green');
    expect(invocationStatusClass('error')).toContain('red');
  });

  it('colours outcomes: success green, failed red, rejected amber (not held against the app)', () => {
    expect(invocationOutcomeClass('success')).toContain('green');
    expect(invocationOutcomeClass('failed')).toContain('red');
    expect(invocationOutcomeClass('rejected')).toContain('amber');
    expect(invocationOutcomeClass('something-else')).toContain('red');
    expect(errorTypeLabel('', 'success')).toBe('—');
    expect(errorTypeLabel('unauthorized', 'rejected')).toBe('unauthorized');
    expect(errorTypeLabel(' ', 'failed')).toBe('Unknown Error');
  });

  it('says in words what each rejection was', () => {
    expect(rejectionLabel('unauthorized')).toBe('Missing or bad API key (401)');
    expect(rejectionLabel('not_found')).toContain('(404)');
    expect(rejectionLabel('invalid_param')).toBe('Invalid inputs (400)');
    expect(rejectionLabel('insufficient_credits')).toBe('Not enough credit (402)');
    expect(rejectionLabel('rate_limited')).toBe('Rate limited (429)');
    expect(rejectionLabel('something_new')).toBe('Other reason');
    expect(rejectionLabel('not_chat_app')).toBe('Chat call to an app that is not a chat app (400)');
    expect(rejectionLabel('wrong_route')).toBe("Wrong endpoint for the app's mode (400)");
    expect(rejectionLabel('')).toBe('Unknown reason');
  });

  it('labels chart days in UTC', () => {
    expect(formatDayTick('2024-03-05')).toBe('Mar 5');
    expect(formatDayLabel('2024-03-05')).toBe('Mar 5, 2024');
    expect(formatDayTick('not a day')).toBe('not a day');
  });
});

describe('formatSuccessRate', () => {
  it('shows – (no data) when no call succeeded or failed, not 0.0%', () => {
    expect(formatSuccessRate(0, 0)).toBe('–');
    expect(formatSuccessRate(0, 3)).toBe('0.0%');
    expect(formatSuccessRate(66.666, 3)).toBe('66.7%');
  });
});
