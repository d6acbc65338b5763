import { describe, expect, it } from 'vitest';
import { APP_CHARTS, ERROR_COLORS, errorSliceLabel, errorSlices, GLOBAL_CHARTS, joinAppSeries, parsePeriod, periodLabel } from './chart.utils';

describe('charts', () => {
  it('draws the four global charts of the spec', () => {
    expect(GLOBAL_CHARTS.map((chart) => [chart.title, chart.kind])).toEqual([
      ['Invocations Over Time', 'area'],
      ['Success vs Error Rate', 'bar'],
      ['Response Time Trend', 'line'],
      ['Token Usage', 'area'],
    ]);
    // Rejected calls (the caller's mistakes) are a bar of their own, apart from the app's errors.
    expect(GLOBAL_CHARTS[1]!.series.map((series) => [series.dataKey, series.name])).toEqual([
      ['success_count', 'Success'],
      ['error_count', 'Errors'],
      ['rejected_count', 'Rejected'],
    ]);
    const tokens = GLOBAL_CHARTS[3]!.series;
    expect(tokens.map((series) => series.dataKey)).toEqual(['input_tokens', 'output_tokens']);
    expect(new Set(tokens.map((series) => series.stackId)).size).toBe(1);
    expect(tokens[0]!.stackId).toBeDefined();
  });

  it('draws the four per-application charts of the spec', () => {
    expect(APP_CHARTS.map((chart) => [chart.title, chart.kind, chart.series.map((series) => series.dataKey)])).toEqual([
      ['Usage Over Time', 'area', ['invocations']],
      ['Performance Metrics', 'bar', ['success_count', 'error_count', 'rejected_count']],
      ['Response Time Trend', 'line', ['response_time']],
      ['Revenue Trend', 'area', ['revenue']],
    ]);
  });

  it('joins usage and performance by date, zero where one is missing', () => {
    expect(
      joinAppSeries(
        [
          { date: '2024-05-01', invocations: 3, revenue: 1.5 },
          { date: '2024-05-02', invocations: 0, revenue: 0 },
        ],
        [{ date: '2024-05-01', success_count: 2, error_count: 1, rejected_count: 4, response_time: 0.25 }],
      ),
    ).toEqual([
      { date: '2024-05-01', invocations: 3, revenue: 1.5, success_count: 2, error_count: 1, rejected_count: 4, response_time: 0.25 },
      { date: '2024-05-02', invocations: 0, revenue: 0, success_count: 0, error_count: 0, rejected_count: 0, response_time: 0 },
    ]);
  });

  it('names empty error types Unknown Error and cycles five colours', () => {
    const slices = errorSlices(['a', '', 'c', 'd', 'e', 'f', '  '].map((error_type, i) => ({ error_type, count: 10 - i })));
    expect(slices.map((slice) => slice.name)).toEqual(['a', 'Unknown Error', 'c', 'd', 'e', 'f', 'Unknown Error']);
    expect(slices.map((slice) => slice.color)).toEqual([...ERROR_COLORS, ERROR_COLORS[0], ERROR_COLORS[1]]);
    expect(slices[0]!.value).toBe(10);
    expect(ERROR_COLORS).toHaveLength(5);
  });

  it('labels slices with name and percent', () => {
    expect(errorSliceLabel({ name: 'provider_error', percent: 0.4249 })).toBe('provider_error 42%');
  });

  it('knows the periods 7, 30 and 90, 30 by default', () => {
    expect(periodLabel(7)).toBe('7d');
    expect(parsePeriod('90')).toBe(90);
    expect(parsePeriod('14')).toBe(30);
    expect(parsePeriod(null)).toBe(30);
  });
});
