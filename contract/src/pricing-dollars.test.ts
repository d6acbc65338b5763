import { describe, expect, it } from 'vitest';
import { bpsMarkupText, dollarsToMicros, markupToBps, microsDollarsText } from './pricing.ts';

describe('dollarsToMicros', () => {
  it('moves the decimal point in the text, exactly', () => {
    expect(dollarsToMicros('0.005')).toBe(5_000);
    expect(dollarsToMicros('1')).toBe(1_000_000);
    expect(dollarsToMicros('2.675')).toBe(2_675_000);
    expect(dollarsToMicros('0.000007')).toBe(7);
    expect(dollarsToMicros('0.1')).toBe(100_000);
    expect(dollarsToMicros('.5')).toBe(500_000);
    expect(dollarsToMicros('3.')).toBe(3_000_000);
    expect(dollarsToMicros(' $12.34 ')).toBe(12_340_000);
    expect(dollarsToMicros('0')).toBe(0);
    expect(dollarsToMicros('007.10')).toBe(7_100_000);
  });

  it('is null for text that is not a plain amount or is finer than a micro-dollar', () => {
    for (const text of ['', ' ', '.', 'abc', '1e3', '-1', '1.2.3', '1,000', '0.0000001', 'NaN', 'Infinity', '+1']) expect(dollarsToMicros(text)).toBeNull();
    expect(dollarsToMicros('99999999999999999')).toBeNull();
  });

  it('round-trips with microsDollarsText', () => {
    for (const micros of [0, 1, 5_000, 10_000, 1_234_567, 100_000_000]) expect(dollarsToMicros(microsDollarsText(micros))).toBe(micros);
  });
});

describe('markupToBps', () => {
  it('reads a multiplier into basis points', () => {
    expect(markupToBps('1.25')).toBe(12_500);
    expect(markupToBps('2')).toBe(20_000);
    expect(markupToBps('×1.5')).toBe(15_000);
    expect(markupToBps('1.00001')).toBeNull();
    expect(markupToBps('x')).toBeNull();
    expect(bpsMarkupText(12_500)).toBe('1.25');
    expect(bpsMarkupText(20_000)).toBe('2');
    expect(bpsMarkupText(10_001)).toBe('1.0001');
  });
});
