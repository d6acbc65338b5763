// The <option>s of a select from a list: plain values, shown as they are, or values with labels.

export function Options({ options }: { options: readonly (string | { value: string; label: string })[] }) {
  return options.map((option) => {
    const { value, label } = typeof option === 'string' ? { value: option, label: option } : option;
    return (
      <option key={value} value={value}>
        {label}
      </option>
    );
  });
}
