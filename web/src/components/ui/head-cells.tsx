// The heading cells of the small hand-written tables (inputs, margins, an app's input form): one
// <th scope="col"> a label, each but the last kept apart from the next by its right padding.

export function HeadCells({ labels, y, gap, medium }: { labels: readonly string[]; y: string; gap: string; medium?: boolean }) {
  const last = labels.length - 1;
  return labels.map((label, index) => (
    <th key={label} scope="col" className={[y, index < last ? gap : null, medium ? 'font-medium' : null].filter(Boolean).join(' ')}>
      {label}
    </th>
  ));
}
