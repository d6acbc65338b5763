// The numbers a formatter must write exactly as Intl does, beyond a test's own cases: the largest safe
// integers and past them, NaN and the infinities, and 2,000 random whole numbers of 1 to 16 digits.
export function withIntlEdgeCases(values: number[]): number[] {
  const all = [
    ...values,
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 2,
    1e21,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ];
  for (let index = 0; index < 2000; index++) all.push(Math.floor((Math.random() - 0.5) * 10 ** (1 + (index % 16))));
  return all;
}
